#pragma once
// A request body going out on a connection: from memory (the head riding
// along in the first write), from a file, or from a stream callback, in
// chunks of client_config::io_chunk. What the writes did is recorded in the
// attempt's state for the retry decision.

#include <floe/config.hpp>
#include <floe/error.hpp>
#include <floe/http/attempt_state.hpp>
#include <floe/http/client_config.hpp>
#include <floe/http/connection.hpp>
#include <floe/http/message.hpp>
#include <floe/http/error_words.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/beast/core/buffers_suffix.hpp>

#include <cstddef>

namespace floe::http::detail {

// Records a failed read or write; a watchdog expiry becomes errc::timeout,
// saying after how long.
inline void io_failure(connection const& c, attempt_state& a, boost::system::error_code ec) {
  a.ec = ec;
  if (c.timed_out()) {
    a.timed_out = true;
    a.ec = errc::timeout;
    if (a.why.empty()) a.why = "timed out after " + format_duration(c.limit());
  }
}

// Records what a write of the request did: whether bytes reached the server,
// progress, or the failure. False when it failed.
inline bool wrote(connection& c, attempt_state& a, boost::system::error_code ec, std::size_t n) {
  if (n > 0) a.reached_server = true;
  if (ec) {
    io_failure(c, a, ec);
    return false;
  }
  c.progress();
  return true;
}

// The part of `b` after the `done` bytes send_now handed over, as one
// asynchronous write. A deferred operation, not a coroutine: no frame, on
// TLS (where send_now takes nothing) or plain TCP alike. A long body's later
// chunks come here with done = 0, so that they yield to other work on the
// io_context between chunks.
template <class Buffers>
auto write_rest(connection& c, Buffers const& b, std::size_t done) {
  boost::beast::buffers_suffix<Buffers> rest(b);
  rest.consume(done);
  return c.async_write(rest, tuple_awaitable);
}

// The request's body. A memory body takes the head in c.wbuf_ along in its
// first write (one send for a small request); for a file or stream body the
// head was sent already. An empty body never comes here.
FLOE_DECL boost::asio::awaitable<void> write_body(connection& c, request& req, client_config const& cfg,
                                                  attempt_state& a);

}  // namespace floe::http::detail

#if defined(FLOE_HEADER_ONLY)
#include <floe/http/impl/body_transfer.ipp>
#endif
