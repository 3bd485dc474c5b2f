#pragma once
// One attempt of an exchange on one connection: the request head and body
// out (a stream body waits for 100 Continue first), then the reply in,
// parsed by the sans-I/O reply_reader from the bytes the connection reads.

#include <floe/config.hpp>
#include <floe/http/attempt_state.hpp>
#include <floe/http/client_config.hpp>
#include <floe/http/connection.hpp>
#include <floe/http/message.hpp>
#include <floe/http/url.hpp>

#include <boost/asio/awaitable.hpp>

namespace floe::http::detail {

// Reads one reply, head and body, into `res`. With `interim`, returns after
// a 100 Continue (true) or when the watchdog fires before any byte (true,
// nothing read); a final reply is read whole (false). 1xx other than an
// awaited 100 are skipped. A failure is in `a`.
FLOE_DECL boost::asio::awaitable<bool> read_reply(connection& c, request const& req, response& res,
                                                  client_config const& cfg, attempt_state& a, bool interim);

// Sends `req` on `c` and reads its reply into `res`; what happened is in `a`
// (a.reusable: the connection may go back to the pool).
FLOE_DECL boost::asio::awaitable<void> run_attempt(connection& c, endpoint const& ep, request& req, response& res,
                                                   client_config const& cfg, attempt_state& a);

}  // namespace floe::http::detail

#if defined(FLOE_HEADER_ONLY)
#include <floe/http/impl/attempt.ipp>
#endif
