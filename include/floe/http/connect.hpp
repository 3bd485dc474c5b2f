#pragma once
// Opening a connection: an address of the name (or the proxy's name) taken
// from the client's address book (address_book.hpp), which is refilled from
// client_config::resolve_overrides, an IP literal or the resolver when its
// addresses are older than the TTL or all benched; TCP connected, the other
// addresses tried in turn when one fails (each try gets an equal share of
// what is left of connect_timeout), the one that failed benched; through a
// proxy when one applies (a CONNECT tunnel for TLS, the absolute form for
// plain HTTP), and TLS with SNI and host-name verification, all within
// connect_timeout.

#include <floe/config.hpp>
#include <floe/error.hpp>
#include <floe/http/address_book.hpp>
#include <floe/http/client_config.hpp>
#include <floe/http/connection.hpp>
#include <floe/http/url.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ssl/context.hpp>

#include <memory>
#include <string_view>
#include <vector>

namespace floe::http::detail {

// Connects `c` to `ep` through an address of `book` (c.lease_ holds it
// once connected; c.peer_ says it). `tls` is the client's TLS context, made
// on first use. A failure says what was being done, where, and why:
// "connecting to 127.0.0.1:1: connection refused"; errc::timeout when
// connect_timeout passed.
FLOE_DECL boost::asio::awaitable<error> connect(connection& c, endpoint const& ep, client_config const& cfg,
                                                std::shared_ptr<boost::asio::ssl::context>& tls,
                                                std::shared_ptr<address_book> const& book);

// The addresses client_config::resolve_overrides gives `host` (every entry
// naming it, each a comma list), appended to `out`; `found` says whether any
// entry names it. An entry that is not a list of IP literals is an
// errc::invalid_argument naming it.
FLOE_DECL error override_addresses(client_config const& cfg, std::string_view host,
                                   std::vector<boost::asio::ip::address>& out, bool& found);

}  // namespace floe::http::detail

#if defined(FLOE_HEADER_ONLY)
#include <floe/http/impl/connect.ipp>
#endif
