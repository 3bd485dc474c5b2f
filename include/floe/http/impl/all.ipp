#pragma once
// Gathers the http implementation files for <floe/src.hpp> and libfloe's units (src/lib/). One line per header.
#include <floe/http/impl/url.ipp>
#include <floe/http/impl/proxy.ipp>
#include <floe/http/impl/tls.ipp>
#include <floe/http/impl/error_words.ipp>
#include <floe/http/impl/deadline.ipp>
#include <floe/http/impl/address_book.ipp>
#include <floe/http/impl/reply_body.ipp>
#include <floe/http/impl/reply_reader.ipp>
#include <floe/http/impl/request_head.ipp>
#include <floe/http/impl/body_transfer.ipp>
#include <floe/http/impl/attempt.ipp>
#include <floe/http/impl/connect.ipp>
#include <floe/http/impl/pool.ipp>
#include <floe/http/impl/exchange.ipp>
#include <floe/http/impl/client.ipp>
