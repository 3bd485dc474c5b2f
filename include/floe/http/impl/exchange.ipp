#pragma once
#include <floe/http/exchange.hpp>

#include <floe/http/attempt.hpp>
#include <floe/http/client.hpp>
#include <floe/http/connection.hpp>
#include <floe/http/error_words.hpp>
#include <floe/http/pool.hpp>
#include <floe/http/request_head.hpp>
#include <floe/http/restartable_body.hpp>

#include <boost/asio/cancellation_state.hpp>
#include <boost/asio/this_coro.hpp>

#include <chrono>

// GCC 12 misreads the sized operator delete of Asio's coroutine frames.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

namespace floe::http::detail {

// Whether the operation's cancellation slot fired (no coroutine frame).
inline bool cancellation_fired(boost::asio::cancellation_state const& cs) noexcept {
  return cs.cancelled() != boost::asio::cancellation_type::none;
}

// Tells the exchange observer what one attempt did (never a body).
inline void observe_exchange(client_config const& cfg, endpoint const& ep, request const& req, response const& res,
                             attempt_state const& a, unsigned attempt, bool resend, bool reused,
                             std::chrono::steady_clock::time_point t0, connection const* c) {
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
  // A hedge that got a whole reply won: the driver takes the first reply
  // head and refuses the other's (request::on_reply_head), so only the
  // winner of a hedged read ends with a reply.
  v.hedge = req.hedge;
  v.hedge_won = req.hedge && !a.ec && res.status != 0;
  v.elapsed = std::chrono::steady_clock::now() - t0;
  if (c != nullptr) v.peer = c->peer_;
  if (a.reply_started) v.ttfb = a.first_byte - a.sent;
  cfg.observer(v);
}

// The failure of an attempt, in words: what it said, else its code's reason.
inline void transport_failure(error& out, exchange_facts& f, attempt_state const& a) {
  out = error(a.ec);
  out.diag.message = a.why.empty() ? error_reason(a.ec) : a.why;
  f.reached_server = a.reached_server;
  f.body_consumed = a.body_consumed;
  f.sink_dirty = a.sink_dirty;
  f.timed_out = a.timed_out;
  if (a.reply_started) f.ttfb = a.first_byte - a.sent;
  f.final = a.ec == errc::reply_too_large || a.ec == errc::invalid_argument;
}

// What the attempt says of the address its connection went to: a stall (a
// timeout with no reply byte) or a fresh connection reset before any reply
// byte benches it; a reply on a fresh connection clears its bench.
inline void note_address(connection const& c, attempt_state const& a, bool reused) {
  if (a.reply_started) {
    if (!reused) c.lease_.succeeded();
  } else if (a.ec && a.timed_out) {
    c.lease_.failed(address_failure::stalled);
  } else if (a.ec && !reused && is_stale_connection_error(a.ec)) {
    c.lease_.failed(address_failure::reset);
  }
}

inline void aborted(error& out, exchange_facts& f) {
  out = error(boost::asio::error::operation_aborted);
  f.cancelled = true;
  f.final = true;
}

FLOE_DECL boost::asio::awaitable<void> run_exchange(client& cl, endpoint const& ep, request& req, response& res,
                                                    unsigned attempt, error& err, exchange_facts& f) {
  namespace asio = boost::asio;
  f = exchange_facts{};
  err.clear();
  if (req.body.type() == body_source::kind::memory && req.body.bytes().size() != req.body.size()) {
    err = error(errc::invalid_argument, "body size mismatch");
    f.final = true;
    f.reached_server = false;
    co_return;
  }
  if (char const* const why = request_head_refusal(req)) {
    err = error(errc::invalid_argument, why);
    f.final = true;
    f.reached_server = false;
    co_return;
  }
  auto& st = *cl.state_;
  auto const& cfg = cl.cfg_;
  retry::request_traits traits = req.traits;
  traits.replayable_body = can_replay(req.body);  // a stale connection: no reply began, no sink touched
  unsigned stale_resends = 0;
  bool resending = false;  // this try resends one that met a closed pooled connection
  for (;;) {
    res.status = 0;
    res.headers.clear();
    res.body.clear();
    res.body_bytes = 0;
    res.keep_alive = false;
    res.retry_stop = errc::ok;

    bool reused = true;
    auto const t0 = cfg.observer ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
    auto conn = take_idle(cfg, st, ep);
    if (!conn) co_await acquire(cl, st, ep, reused, conn, err);
    attempt_state a;
    if (!conn) {
      if (cancellation_fired(co_await asio::this_coro::cancellation_state) || err.code == asio::error::operation_aborted)
        co_return aborted(err, f);
      a.ec = err.code;
      a.timed_out = err.code == errc::timeout;
      a.reached_server = false;
      if (!err.diag.message.empty()) a.why = err.diag.message;
      if (cfg.observer) observe_exchange(cfg, ep, req, res, a, attempt, false, false, t0, nullptr);
      if (err.diag.http_status != 0) {  // a proxy refused CONNECT: its answer is the failure
        f.reached_server = false;
        f.final = true;
        co_return;
      }
      co_return transport_failure(err, f, a);
    }
    if (reused) conn->rbuf_.clear();
    ++cl.stats_.attempts;
    if (!reused) ++cl.stats_.connections_opened;
    co_await run_attempt(*conn, ep, req, res, cfg, a);
    note_address(*conn, a, reused);
    if (cfg.observer) observe_exchange(cfg, ep, req, res, a, attempt, resending, reused, t0, conn.get());
    resending = false;
    bool const was_cancelled = cancellation_fired(co_await asio::this_coro::cancellation_state);
    release(cfg, st, ep, std::move(conn), !a.ec && a.reusable && !was_cancelled);
    if (was_cancelled || (a.ec == asio::error::operation_aborted && !a.timed_out)) co_return aborted(err, f);
    // A reused connection the server had already closed: resend, outside
    // the attempt count and the quota, when the retry policy allows it.
    if (a.ec && reused && !a.reply_started && is_stale_connection_error(a.ec)) {
      char const* const refusal = retry::stale_resend_refusal(traits, a.body_consumed, stale_resends, cfg.max_stale_resends);
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
    if (a.ec) co_return transport_failure(err, f, a);
    f.body_consumed = a.body_consumed;
    f.sink_dirty = a.sink_dirty;
    if (a.reply_started) f.ttfb = a.first_byte - a.sent;
    err.clear();
    co_return;
  }
}

}  // namespace floe::http::detail

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
