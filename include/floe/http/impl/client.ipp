#pragma once
#include <floe/http/client.hpp>

#include <floe/http/attempt.hpp>
#include <floe/http/connection.hpp>
#include <floe/http/outcome.hpp>
#include <floe/http/pool.hpp>
#include <floe/http/request_head.hpp>
#include <floe/http/tls.hpp>

#include <boost/asio/cancellation_state.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <chrono>
#include <new>

// The retry loop of http::client: each attempt takes a connection from the
// pool (pool.hpp), runs on it (attempt.hpp) and is settled (outcome.hpp).

// GCC 12 misreads the sized operator delete of Asio's coroutine frames.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

namespace floe::http {

namespace detail {

// Tells the exchange observer what one attempt did (never a body).
inline void observe(client_config const& cfg, endpoint const& ep, request const& req, response const& res,
                    attempt_state const& a, unsigned attempt, bool resend, bool reused, std::chrono::steady_clock::time_point t0) {
  exchange_view v;
  v.operation = req.operation;
  v.method = req.method;
  v.ep = &ep;
  v.target = req.target;
  v.request_headers = &req.headers;
  v.ec = a.ec;
  if (!a.ec && res.status != 0) {
    v.status = res.status;
    v.reply_headers = &res.headers;
  }
  v.attempt = attempt;
  v.resend = resend;
  v.reused_connection = reused;
  v.elapsed = std::chrono::steady_clock::now() - t0;
  cfg.observer(v);
}

// run_send_into's way out with a failure: `out` becomes it, completed.
inline void fail(error& out, retry::operation const& op, request const& req, response& res, error e) {
  out = finish_error(op, req, res, std::move(e), nullptr);
}

// Fails the exchange, true, when `req` cannot be written (request_head_refusal).
inline bool refused(error& out, retry::operation const& op, request const& req, response& res) {
  char const* const why = request_head_refusal(req);
  if (!why) return false;
  fail(out, op, req, res, error(errc::invalid_argument, why));
  return true;
}

// Whether the operation's cancellation slot fired; called as
// is_cancelled(co_await this_coro::cancellation_state) (no coroutine frame).
inline bool is_cancelled(boost::asio::cancellation_state const& cs) noexcept {
  return cs.cancelled() != boost::asio::cancellation_type::none;
}

// The wait before a retry, in a frame of its own (only a retry pays for it).
inline boost::asio::awaitable<void> back_off(boost::asio::any_io_executor ex, std::chrono::nanoseconds delay) {
  boost::asio::steady_timer t(ex, delay);
  co_await t.async_wait(tuple_awaitable);
}

}  // namespace detail

FLOE_DECL client::client(executor_type ex, client_config cfg)
    : ex_(std::move(ex)), cfg_(std::move(cfg)), quota_(cfg_.retry), state_(std::make_unique<detail::client_state>(ex_)) {}

FLOE_DECL client::~client() { close_idle(); }

FLOE_DECL std::size_t client::idle_connections(endpoint const& ep) const noexcept {
  for (auto const& p : state_->pools)
    if (p->ep == ep) return p->idle.size();
  return 0;
}

FLOE_DECL void client::close_idle() {
  for (auto& p : state_->pools) {
    for (auto& c : p->idle) c->close();
    p->total -= p->idle.size();
    p->idle.clear();
  }
}

FLOE_DECL error detail::error_from_exception(std::exception_ptr const& e) {
  try {
    std::rethrow_exception(e);
  } catch (boost::system::system_error const& se) {
    return detail::with_message(se.code(), se.what());
  } catch (std::bad_alloc const&) {
    return error(make_error_code(boost::system::errc::not_enough_memory));
  } catch (std::exception const& ex) {
    return error(errc::invalid_argument, ex.what());
  } catch (...) {
    return error(errc::invalid_argument, "unknown exception");
  }
}

FLOE_DECL boost::asio::awaitable<error> detail::run_send(client& cl, endpoint const& ep, request& req,
                                                         response& res) {
  error e;
  co_await run_send_into(cl, ep, req, res, e);
  co_return e;
}

FLOE_DECL boost::asio::awaitable<void> detail::run_send_into(client& cl, endpoint const& ep, request& req,
                                                             response& res, error& err) {
  namespace asio = boost::asio;
  co_await asio::this_coro::throw_if_cancelled(false);
  auto& st = *cl.state_;
  auto const& cfg = cl.cfg_;
  retry::operation op(cfg.retry, cl.quota_);
  retry::request_traits traits = req.traits;
  // A stream sink that already took bytes cannot take them again: the
  // attempt is then as unrepeatable as a consumed stream body.
  traits.replayable_body = req.body.replayable() && req.sink.resettable();
  unsigned stale_resends = 0;
  bool resending = false;  // this attempt resends one that met a closed pooled connection
  if (req.body.type() == body_source::kind::memory && req.body.bytes().size() != req.body.size())
    co_return detail::fail(err, op, req, res, error(errc::invalid_argument, "body size mismatch"));

  err.clear();  // this attempt's error, then the exchange's result
  for (;;) {
    if (req.sign) {
      err = req.sign(req, attempt_info{op.attempt(), cl.skew_});
      if (err.code) co_return detail::fail(err, op, req, res, std::move(err));
    }
    if (detail::refused(err, op, req, res)) co_return;
    res.status = 0;
    res.headers.clear();
    res.body.clear();
    res.body_bytes = 0;
    res.keep_alive = false;
    res.retry_stop = errc::ok;

    bool reused = true;
    auto const t0 = cfg.observer ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
    auto conn = detail::take_idle(cfg, st, ep);
    err.clear();
    if (!conn) co_await detail::acquire(cl, st, ep, reused, conn, err);
    detail::attempt_state a;
    if (!conn) {
      if (detail::is_cancelled(co_await asio::this_coro::cancellation_state) || err.code == asio::error::operation_aborted)
        co_return detail::fail(err, op, req, res, error(asio::error::operation_aborted));
      a.ec = err.code;
      a.timed_out = err.code == errc::timeout;
      a.reached_server = false;
      if (!err.diag.message.empty()) a.why = err.diag.message;
      if (cfg.observer) detail::observe(cfg, ep, req, res, a, op.attempt(), false, false, t0);
      if (err.diag.http_status != 0) co_return detail::fail(err, op, req, res, std::move(err));  // proxy refused CONNECT
    } else {
      if (reused) conn->rbuf_.clear();
      ++cl.stats_.attempts;
      if (!reused) ++cl.stats_.connections_opened;
      co_await detail::run_attempt(*conn, ep, req, res, cfg, a);
      if (cfg.observer) detail::observe(cfg, ep, req, res, a, op.attempt(), resending, reused, t0);
      resending = false;
      bool const was_cancelled = detail::is_cancelled(co_await asio::this_coro::cancellation_state);
      detail::release(cfg, st, ep, std::move(conn), !a.ec && a.reusable && !was_cancelled);
      if (was_cancelled) co_return detail::fail(err, op, req, res, error(asio::error::operation_aborted));
      if (a.ec == asio::error::operation_aborted && !a.timed_out)
        co_return detail::fail(err, op, req, res, error(asio::error::operation_aborted));
      // A reused connection the server had already closed: resend, outside
      // the attempt count and the quota, when the retry policy allows it.
      if (a.ec && reused && !a.reply_started && detail::is_stale_connection_error(a.ec)) {
        char const* const refusal =
            retry::stale_resend_refusal(traits, a.body_consumed, stale_resends, cfg.max_stale_resends);
        if (!refusal) {
          ++stale_resends;
          ++cl.stats_.stale_resends;
          resending = true;
          continue;
        }
        // Whether the server acted on the request before closing is unknown.
        if (a.why.empty()) {
          a.why = "the server closed the reused connection without replying; not resent: ";
          a.why += refusal;
        }
      }
    }

    auto const next = detail::settle(cfg, st.rng, cl.skew_, op, traits, req, res, a, err);
    if (next.over) co_return;
    if (next.delay.count() > 0) {
      co_await detail::back_off(cl.get_executor(), next.delay);
      if (detail::is_cancelled(co_await asio::this_coro::cancellation_state))
        co_return detail::fail(err, op, req, res, error(asio::error::operation_aborted));
    }
  }
}

FLOE_DECL boost::asio::awaitable<result<response>> detail::run_send_value(client& c, endpoint const& ep,
                                                                          request& req) {
  response res;
  error e;
  co_await run_send_into(c, ep, req, res, e);
  if (e.code) co_return e;
  co_return res;
}

}  // namespace floe::http

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
