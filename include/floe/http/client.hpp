#pragma once
// http::client: HTTP/1.1 over TCP or TLS with a connection pool per
// (scheme, host, port) and streaming bodies both ways. It does one exchange
// at a time (plus the resend it owns of a request that met a reused
// connection the server had closed): signing, classifying replies and
// retrying are the request driver's (service/driver.hpp), which sends each
// attempt through detail::run_exchange (exchange.hpp).
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
#include <string_view>
#include <vector>

namespace floe::http {

class client;

namespace detail {
struct client_state;
FLOE_DECL boost::asio::awaitable<error> run_send(client& c, endpoint const& ep, request& req, response& res);
FLOE_DECL boost::asio::awaitable<result<response>> run_send_value(client& c, endpoint const& ep, request& req);
FLOE_DECL error error_from_exception(std::exception_ptr const& e);
FLOE_DECL boost::asio::awaitable<error> run_warm_up(client& c, endpoint ep, std::size_t n);

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
    std::uint64_t attempts = 0;       // requests written (every exchange and resend)
    std::uint64_t stale_resends = 0;  // resends after a reused connection was found closed
  };

  FLOE_DECL explicit client(executor_type ex, client_config cfg = {});
  FLOE_DECL ~client();
  client(client const&) = delete;
  client& operator=(client const&) = delete;

  /// A reference to the client's own: the operation launcher
  /// (service/detail/launch.hpp) keeps a pointer to it, not a copy.
  executor_type const& get_executor() const noexcept { return ex_; }
  client_config const& config() const noexcept { return cfg_; }
  /// The retry quota (config().retry) shared by the request drivers that
  /// send through this client: one per destination pool, as the standard
  /// mode keeps it per client.
  retry::quota& quota() noexcept { return quota_; }
  statistics const& stats() const noexcept { return stats_; }

  /// Server minus local clock, learnt by a request driver from the Date of
  /// a clock-skew rejection and used when it signs; kept here so every
  /// driver on this client signs with it.
  std::chrono::seconds clock_skew() const noexcept { return skew_; }
  void set_clock_skew(std::chrono::seconds s) noexcept { skew_ = s; }

  /// Idle connections in the pool of `ep` (0 if it has none).
  FLOE_DECL std::size_t idle_connections(endpoint const& ep) const noexcept;

  /// Every address the client knows of `host`:`port` (the name it connects
  /// to: the proxy's when one applies), in the resolver's order, with its
  /// open connections and bench (client_config::addresses).
  FLOE_DECL std::vector<address_report> addresses(std::string_view host, std::uint16_t port) const;

  /// Closes every idle pooled connection.
  FLOE_DECL void close_idle();

  /// One exchange: sends `req` to `ep` once and reads the reply into
  /// `res`, resending transparently an idempotent request that met a reused
  /// connection the server had closed. Nothing is signed, classified or
  /// retried (the request driver, service/driver.hpp, does that).
  ///
  /// Completes with `floe::error`: no code when a reply is in `res`
  /// (whatever its status); otherwise the failure: errc::timeout (connect
  /// or idle timeout), errc::reply_too_large, errc::malformed_reply, errc::
  /// invalid_argument (a header with CR/LF, a bad body), a system,
  /// resolver, TLS or proxy error, or asio::error::operation_aborted when
  /// cancelled. `diag.message` says what was being done, in the operating
  /// system's words for a transport failure ("connecting to 127.0.0.1:1:
  /// connection refused").
  ///
  /// Cancellation: terminal cancellation (the only type let through) aborts
  /// the exchange; the connection in use is closed. A whole-operation
  /// deadline is a timer emitting on the slot.
  ///
  /// Lifetimes: the client, `ep`, `req` and `res` must outlive the operation.
  template <class Token = boost::asio::deferred_t>
  auto async_send(endpoint const& ep, request& req, response& res, Token&& token = {}) {
    return boost::asio::async_initiate<Token, void(error)>(
        [this](auto handler, endpoint const* e, request* rq, response* rs) {
          detail::spawn<void(error)>(ex_, detail::run_send(*this, *e, *rq, *rs), std::move(handler));
        },
        token, &ep, &req, &res);
  }

  /// Warm-up, for services that want no handshake inside their first
  /// requests: opens connections to `ep` (TCP, the proxy's CONNECT, TLS
  /// done), at the same time, until `n` idle ones wait in its pool (at most
  /// max_connections_per_host open), each to an address of the address
  /// book as any new connection (so spread over the store's addresses),
  /// and parks them there. Completes with no error when every one opened,
  /// else with the first failure (those that opened stay parked). They
  /// expire as any idle connection (pool_idle_timeout).
  ///
  /// Cancellation: terminal cancellation aborts the connections still
  /// opening and completes, once they ended, with operation_aborted.
  /// Lifetimes: the client must outlive the operation (`ep` is copied).
  template <class Token = boost::asio::deferred_t>
  auto async_warm_up(endpoint ep, std::size_t n, Token&& token = {}) {
    return boost::asio::async_initiate<Token, void(error)>(
        [this](auto handler, endpoint e, std::size_t count) {
          detail::spawn<void(error)>(ex_, detail::run_warm_up(*this, std::move(e), count), std::move(handler));
        },
        token, std::move(ep), n);
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
  friend boost::asio::awaitable<error> detail::run_warm_up(client&, endpoint, std::size_t);
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
