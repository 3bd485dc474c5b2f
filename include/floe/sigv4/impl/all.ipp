#pragma once
// Gathers the sigv4 implementation files for <floe/src.hpp> and libfloe's units (src/lib/). One line per header.
#include <floe/detail/impl/sha256.ipp>
#include <floe/sigv4/impl/uri_encode.ipp>
#include <floe/sigv4/impl/canonical.ipp>
#include <floe/sigv4/impl/signing_key_cache.ipp>
#include <floe/sigv4/impl/signer.ipp>
#include <floe/sigv4/impl/chunk_signer.ipp>
#include <floe/sigv4/impl/aws_chunked.ipp>
