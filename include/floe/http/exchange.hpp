#pragma once
// One exchange of http::client: a connection from the pool, the request
// written, the reply read — plus the resend it owns of a request that met a
// reused connection the server had closed. No signing, no classification,
// no retry: those are the request driver's (service/driver.hpp), which
// calls this once per attempt.

#include <floe/config.hpp>
#include <floe/error.hpp>
#include <floe/http/message.hpp>
#include <floe/http/url.hpp>

#include <boost/asio/awaitable.hpp>

#include <chrono>

namespace floe::http {

class client;

/// What an exchange did, as the retry decision needs it.
struct exchange_facts {
  /// False: nothing was written (resolving, connecting, the proxy or TLS failed).
  bool reached_server = true;
  /// Bytes of a request body that cannot be replayed (a stream) were read.
  bool body_consumed = false;
  /// Bytes of the reply went to a sink that cannot be reset (a stream).
  bool sink_dirty = false;
  /// A connect or idle timeout ended it.
  bool timed_out = false;
  /// The request or the reply is wrong (a bad header, a reply over a limit),
  /// or a proxy refused CONNECT: trying again changes nothing.
  bool final = false;
  /// The operation's cancellation slot fired (the error is operation_aborted).
  bool cancelled = false;
  /// From the request's first byte written to the reply's first byte read
  /// (zero: no reply byte came).
  std::chrono::steady_clock::duration ttfb{};
};

namespace detail {

// Sends `req` to `ep` once and reads the reply into `res`. `out` is cleared
// when a reply (whatever its status) is in `res`; otherwise it holds the
// failure, its message in the operating system's words ("connecting to
// 127.0.0.1:1: connection refused"), and `facts` say what the attempt did.
// `attempt` is what the exchange observer is told. Shares the calling
// coroutine's cancellation state (terminal cancellation aborts it).
FLOE_DECL boost::asio::awaitable<void> run_exchange(client& c, endpoint const& ep, request& req, response& res,
                                                    unsigned attempt, error& out, exchange_facts& facts);

}  // namespace detail
}  // namespace floe::http

// Header-only builds get the definition through http/client.hpp, which
// this header's definition needs whole.
