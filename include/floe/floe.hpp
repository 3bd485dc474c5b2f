#pragma once
// Everything public in floe, in one include. Heavy: prefer the headers you
// use (each compiles on its own).

#include <floe/config.hpp>
#include <floe/error.hpp>
#include <floe/result.hpp>

#include <floe/errors/classify.hpp>
#include <floe/errors/kind.hpp>
#include <floe/errors/reply_error.hpp>
#include <floe/xml/document.hpp>
#include <floe/xml/error_body.hpp>
#include <floe/sigv4/canonical.hpp>
#include <floe/sigv4/chunk_signer.hpp>
#include <floe/sigv4/signer.hpp>
#include <floe/sigv4/signing_key_cache.hpp>
#include <floe/sigv4/uri_encode.hpp>
#include <floe/checksum/algorithm.hpp>
#include <floe/checksum/base64.hpp>
#include <floe/checksum/combine.hpp>
#include <floe/checksum/crc.hpp>
#include <floe/checksum/hasher.hpp>
#include <floe/retry/clock_skew.hpp>
#include <floe/retry/policy.hpp>

#include <floe/http/body.hpp>
#include <floe/http/client.hpp>
#include <floe/http/client_config.hpp>
#include <floe/http/fields.hpp>
#include <floe/http/message.hpp>
#include <floe/http/proxy.hpp>
#include <floe/http/tls.hpp>
#include <floe/http/url.hpp>

#include <floe/credentials/credentials.hpp>
#include <floe/credentials/environment.hpp>
#include <floe/credentials/ini.hpp>
#include <floe/credentials/profile.hpp>
#include <floe/credentials/provider.hpp>
#include <floe/credentials/shared_files.hpp>

#include <floe/s3/addressing.hpp>
#include <floe/s3/client.hpp>
#include <floe/s3/conditional.hpp>
#include <floe/s3/list_pager.hpp>
#include <floe/s3/replies.hpp>
#include <floe/s3/update.hpp>

#include <floe/sqs/client.hpp>
#include <floe/sqs/protocol.hpp>
