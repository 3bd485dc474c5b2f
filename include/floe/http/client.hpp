#pragma once
// http::client: HTTP/1.1 over TCP or TLS with a connection pool per
// (scheme, host, port), per-attempt signing, the standard retry policy and
// streaming bodies both ways.
//
// Threading: a client and everything it sends run on the client's executor.
// Use it from one thread, or give it a strand when the io_context has
// several. No threads of its own (Asio's resolver thread aside).

#include <floe/config.hpp>
#include <floe/error.hpp>
#include <floe/http/client_config.hpp>
#include <floe/http/exchange.hpp>
#include <floe/http/message.hpp>
#include <floe/http/url.hpp>
#include <floe/result.hpp>
#include <floe/retry/policy.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/associated_cancellation_slot.hpp>
#include <boost/asio/associated_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/deferred.hpp>

#include <chrono>
#include <cstdint>
#include <exception>
#include <memory>

namespace floe::http {

class client;

namespace detail {
struct client_state;
FLOE_DECL boost::asio::awaitable<error> run_send(client& c, endpoint const& ep, request& req, response& res);
// run_send with the outcome written to `out` (cleared first): no error-sized
// result in the caller's coroutine frame or in its own.
FLOE_DECL boost::asio::awaitable<void> run_send_into(client& c, endpoint const& ep, request& req, response& res, error& out);
FLOE_DECL boost::asio::awaitable<result<response>> run_send_value(client& c, endpoint const& ep, request& req);
FLOE_DECL error error_from_exception(std::exception_ptr const& e);

template <class Sig, class Handler, class Awaitable>
void spawn(boost::asio::any_io_executor const& ex, Awaitable&& op, Handler&& handler) {
  namespace asio = boost::asio;
  auto slot = asio::get_associated_cancellation_slot(handler);
  auto hex = asio::get_associated_executor(handler, ex);
  asio::co_spawn(ex, std::forward<Awaitable>(op),
                 asio::bind_cancellation_slot(
                     slot, asio::bind_executor(hex, [h = std::move(handler)](std::exception_ptr e, auto v) mutable {
                       if (e) v = error_from_exception(e);
                       std::move(h)(std::move(v));
                     })));
}
}  // namespace detail

class client {
 public:
  using executor_type = boost::asio::any_io_executor;

  /// Counters for tests and benchmarks.
  struct statistics {
    std::uint64_t connections_opened = 0;
    std::uint64_t attempts = 0;       // requests written (every attempt and resend)
    std::uint64_t stale_resends = 0;  // resends after a reused connection was found closed
  };

  FLOE_DECL explicit client(executor_type ex, client_config cfg = {});
  FLOE_DECL ~client();
  client(client const&) = delete;
  client& operator=(client const&) = delete;

  executor_type get_executor() const noexcept { return ex_; }
  client_config const& config() const noexcept { return cfg_; }
  retry::quota& quota() noexcept { return quota_; }
  statistics const& stats() const noexcept { return stats_; }

  /// Server minus local clock, learnt from the Date of a clock-skew
  /// rejection and passed to the sign hook. Settable for the service layer.
  std::chrono::seconds clock_skew() const noexcept { return skew_; }
  void set_clock_skew(std::chrono::seconds s) noexcept { skew_ = s; }

  /// Idle connections in the pool of `ep` (0 if it has none).
  FLOE_DECL std::size_t idle_connections(endpoint const& ep) const noexcept;

  /// Closes every idle pooled connection.
  FLOE_DECL void close_idle();

  /// Sends `req` to `ep` and reads the reply into `res`, retrying by the
  /// standard policy (req.traits says what may be retried, req.classify what
  /// a reply means) and resending transparently an idempotent request that
  /// met a reused connection the server had closed.
  ///
  /// Completes with `floe::error`: no code when a reply is in `res` (whatever
  /// its status: `res.kind` and `res.retry_stop` say what it means and why it
  /// was not retried further); otherwise the failure: errc::timeout (connect
  /// or idle timeout), errc::unknown_outcome (a conditional write whose reply
  /// was lost), errc::reply_too_large, errc::malformed_reply, errc::
  /// invalid_argument (a header with CR/LF, a bad body), a system, resolver,
  /// TLS or proxy error, or asio::error::operation_aborted when cancelled.
  /// `diag.message` says what was being done and why, in the operating
  /// system's words for a transport failure ("connecting to 127.0.0.1:1:
  /// connection refused"); `diag.attempt` says how many attempts were made.
  ///
  /// Cancellation: terminal cancellation (the only type let through) aborts the
  /// attempt in flight or the back-off sleep; the connection in use is
  /// closed. A whole-operation deadline is a timer emitting on the slot.
  ///
  /// Lifetimes: the client, `ep`, `req` and `res` must outlive the operation.
  /// `req` is modified by the sign hook and keeps the headers it set.
  template <class Token = boost::asio::deferred_t>
  auto async_send(endpoint const& ep, request& req, response& res, Token&& token = {}) {
    return boost::asio::async_initiate<Token, void(error)>(
        [this](auto handler, endpoint const* e, request* rq, response* rs) {
          detail::spawn<void(error)>(ex_, detail::run_send(*this, *e, *rq, *rs), std::move(handler));
        },
        token, &ep, &req, &res);
  }

  /// As above, completing with a fresh response or the error.
  template <class Token = boost::asio::deferred_t>
  auto async_send(endpoint const& ep, request& req, Token&& token = {}) {
    return boost::asio::async_initiate<Token, void(result<response>)>(
        [this](auto handler, endpoint const* e, request* rq) {
          detail::spawn<void(result<response>)>(ex_, detail::run_send_value(*this, *e, *rq), std::move(handler));
        },
        token, &ep, &req);
  }

 private:
  friend struct detail::client_state;
  friend boost::asio::awaitable<void> detail::run_send_into(client&, endpoint const&, request&, response&, error&);
  friend boost::asio::awaitable<void> detail::run_exchange(client&, endpoint const&, request&, response&, unsigned,
                                                           error&, exchange_facts&);

  executor_type ex_;
  client_config cfg_;
  retry::quota quota_;
  statistics stats_;
  std::chrono::seconds skew_{0};
  std::unique_ptr<detail::client_state> state_;
};

}  // namespace floe::http

#if defined(FLOE_HEADER_ONLY)
#include <floe/http/impl/client.ipp>
#include <floe/http/impl/exchange.ipp>
#endif
