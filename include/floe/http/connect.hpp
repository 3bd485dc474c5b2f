#pragma once
// Opening a connection: the name resolved (or taken from
// client_config::resolve_overrides), TCP connected, through a proxy when one
// applies (a CONNECT tunnel for TLS, the absolute form for plain HTTP), and
// TLS with SNI and host-name verification, all within connect_timeout.

#include <floe/config.hpp>
#include <floe/error.hpp>
#include <floe/http/client_config.hpp>
#include <floe/http/connection.hpp>
#include <floe/http/url.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ssl/context.hpp>

#include <memory>

namespace floe::http::detail {

// Connects `c` to `ep`. `tls` is the client's TLS context, made on first
// use. A failure says what was being done, where, and why: "connecting to
// 127.0.0.1:1: connection refused"; errc::timeout when connect_timeout
// passed.
FLOE_DECL boost::asio::awaitable<error> connect(connection& c, endpoint const& ep, client_config const& cfg,
                                                std::shared_ptr<boost::asio::ssl::context>& tls);

}  // namespace floe::http::detail

#if defined(FLOE_HEADER_ONLY)
#include <floe/http/impl/connect.ipp>
#endif
