#pragma once
// The request driver's races (service/driver.hpp): an attempt against the
// operation's deadline, and a hedgeable read against its hedge or its late
// bound (retry/hedge.hpp), where the first reply head wins. Part of
// driver.ipp, which includes it.
#include <floe/service/impl/driver.ipp>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>

#include <exception>

// GCC 12 misreads the sized operator delete of Asio's coroutine frames.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

namespace floe::service {

namespace detail {

// One hedgeable attempt's race (driver::exchange_hedged). Each attempt's
// request says when its reply head came (http::request::on_reply_head); the
// first head commits, and the other attempt's head, if it comes, is refused
// (that attempt ends there with no reply). The hedge runs in a coroutine of
// its own, so the race can end at its head (the first attempt is cancelled
// then) while its body is still read; every way out of exchange_hedged stops
// it and waits for its end, so nothing the hedge uses is gone before it.
struct head_race {
  enum class who { none, first, hedge };
  explicit head_race(boost::asio::any_io_executor const& ex)
      : wake(ex, std::chrono::steady_clock::time_point::max()),
        hedge_done(ex, std::chrono::steady_clock::time_point::max()) {}

  who first = who::none;  // whose head came first
  std::chrono::steady_clock::time_point first_head{}, hedge_head{};
  // hedge_after's wait: cut short by either head and by the hedge's end.
  boost::asio::steady_timer wake;
  bool hedge_running = false;
  boost::asio::cancellation_signal hedge_cancel;
  boost::asio::steady_timer hedge_done;  // cut short when the hedge ends

  // An attempt's reply head came: whether its reply is the one wanted (the
  // other attempt's head came first: no).
  bool head(who w) {
    (w == who::first ? first_head : hedge_head) = std::chrono::steady_clock::now();
    if (first != who::none) return first == w;
    first = w;
    wake.cancel();
    return true;
  }
  void hedge_ended() {
    hedge_running = false;
    wake.cancel();
    hedge_done.cancel();
  }
};

// What the learner is taught of a reply: the time from its request's first
// byte written to its reply's first byte read, so a connection opened for
// it (a first request, every hedge) does not count; from the start of the
// attempt when the exchange could not say.
inline std::chrono::nanoseconds learned_ttfb(http::exchange_facts const& xf, std::chrono::nanoseconds since_start) {
  return xf.ttfb.count() > 0 ? std::chrono::duration_cast<std::chrono::nanoseconds>(xf.ttfb) : since_start;
}

// Waits until cancelled (a racer that has nothing left to say).
inline boost::asio::awaitable<int> park(boost::asio::any_io_executor ex) {
  boost::asio::steady_timer t(ex, std::chrono::steady_clock::time_point::max());
  (void)co_await expiry(t);
  co_return 0;
}

// Until the hedge has ended, or this wait is cancelled.
inline boost::asio::awaitable<void> hedge_end(head_race& race) {
  bool waiting = race.hedge_running;
  while (waiting) {
    auto const cs = co_await boost::asio::this_coro::cancellation_state;
    race.hedge_done.expires_at(std::chrono::steady_clock::time_point::max());
    if (!fired(cs)) (void)co_await race.hedge_done.async_wait(boost::asio::as_tuple(boost::asio::deferred));
    waiting = race.hedge_running && !fired(cs);
  }
}

// Cancels the hedge if it still runs and waits for its end, which then
// comes at once; a caller's cancellation, already given, does not cut this
// wait short (a second one only wakes it to wait again).
inline boost::asio::awaitable<void> stop_hedge(head_race& race) {
  if (!race.hedge_running) co_return;
  race.hedge_cancel.emit(boost::asio::cancellation_type::terminal);
  while (race.hedge_running) {
    race.hedge_done.expires_at(std::chrono::steady_clock::time_point::max());
    (void)co_await race.hedge_done.async_wait(boost::asio::as_tuple(boost::asio::deferred));
  }
}

}  // namespace detail


FLOE_DECL std::chrono::steady_clock::time_point driver::deadline_of(request_spec const& spec) const {
  if (spec.deadline) return *spec.deadline;
  if (cfg_.retry.deadline.count() > 0) return std::chrono::steady_clock::now() + cfg_.retry.deadline;
  return {};
}

FLOE_DECL boost::asio::awaitable<bool> driver::exchange_until(std::chrono::steady_clock::time_point until,
                                                              request_spec& spec, http::request& req,
                                                              http::response& res, unsigned attempt, error& out,
                                                              http::exchange_facts& xf) {
  using namespace boost::asio::experimental::awaitable_operators;
  boost::asio::steady_timer t(http_.get_executor(), until);
  auto const r = co_await (detail::guarded_exchange(http_, *spec.ep, req, res, attempt, out, xf) || detail::expiry(t));
  co_return r.index() == 0;
}

FLOE_DECL bool driver::hedge_eligible(request_spec const& spec, http::request const& req) const noexcept {
  // Reads only, into memory (two attempts never share a file or a
  // caller's function), with no body.
  return spec.hedgeable && (req.method == "GET" || req.method == "HEAD") &&
         req.sink.type() == http::body_sink::kind::memory && req.body.size() == 0;
}

FLOE_DECL unsigned driver::band_before(request_spec const& spec, http::request const& req,
                                      std::chrono::steady_clock::time_point now) const {
  if (!spec.sized_reply || req.method != "GET") return 0;
  auto const range = req.headers.get("Range");
  return sizes_.band(spec.ep->host, spec.operation, range.empty() ? std::nullopt : retry::range_length(range), now);
}

FLOE_DECL unsigned driver::band_after(request_spec const& spec, http::request const& req, http::response const& res,
                                      std::chrono::steady_clock::time_point now) {
  if (!spec.sized_reply || req.method != "GET") return 0;
  // A whole object's size teaches the band of the next whole-object read;
  // a ranged one's is known before it is sent.
  if (req.headers.get("Range").empty()) sizes_.add(spec.ep->host, spec.operation, res.body_bytes, now);
  return retry::size_band(res.body_bytes);
}

FLOE_DECL boost::asio::awaitable<int> driver::hedge_after(request_spec& spec, http::request const& req,
                                                          unsigned attempt, unsigned band,
                                                          std::chrono::steady_clock::time_point t0,
                                                          detail::head_race& race) {
  namespace asio = boost::asio;
  using steady = std::chrono::steady_clock;
  using who = detail::head_race::who;
  co_await asio::this_coro::throw_if_cancelled(false);
  auto const& host = spec.ep->host;
  auto const ex = http_.get_executor();
  if (cfg_.hedge.enabled) {
    race.wake.expires_at(t0 + ttfb_.delay(host, spec.operation, band, t0));
    bool passed = false;
    if (race.first == who::none) passed = co_await detail::expiry(race.wake);
    if (detail::fired(co_await asio::this_coro::cancellation_state)) co_return 0;  // the first attempt ended first
    // Its head came within the delay: no hedge, no late cut.
    if (!passed || race.first != who::none) co_return co_await detail::park(ex);
    if (hedge_budget_.try_hedge()) {
      ++hedge_stats_.sent;
      if (!spec.hedge) spec.hedge = std::make_unique<detail::hedge_scratch>();
      auto& h = *spec.hedge;
      h.req.clear();
      h.req.method = req.method;
      h.req.target = req.target;
      h.req.headers = req.headers;  // signed as the first: the same request
      h.req.traits = req.traits;
      h.req.operation = req.operation;
      h.req.idle_timeout = req.idle_timeout;
      h.req.hedge = true;
      h.req.on_reply_head = [&race] { return race.head(who::hedge); };
      h.res.clear();
      h.out.clear();
      h.xf = {};
      h.sent = steady::now();
      race.hedge_running = true;
      // A coroutine of its own: the race may end at its head while its body
      // is still read. exchange_hedged stops it and waits for its end.
      asio::co_spawn(ex, detail::guarded_exchange(http_, *spec.ep, h.req, h.res, attempt, h.out, h.xf),
                     asio::bind_cancellation_slot(race.hedge_cancel.slot(),
                                                  [&race](std::exception_ptr) { race.hedge_ended(); }));
      for (;;) {
        // The hedge's head came first: it wins, the first attempt is cancelled.
        if (race.first == who::hedge) co_return 1;
        if (race.first == who::first) {
          // The first attempt's head came first: the hedge is cancelled.
          race.hedge_cancel.emit(asio::cancellation_type::terminal);
          break;
        }
        if (!race.hedge_running) break;  // the hedge failed with no head: the first attempt decides
        race.wake.expires_at(steady::time_point::max());
        (void)co_await detail::expiry(race.wake);
        if (detail::fired(co_await asio::this_coro::cancellation_state)) co_return 0;
      }
      co_return co_await detail::park(ex);
    }
  }
  // No hedge: a reply head later than the learned bound is cut like a
  // timeout, once the bound is learned.
  if (ttfb_.recent(host, spec.operation, band, t0) < cfg_.hedge.min_samples) co_return co_await detail::park(ex);
  race.wake.expires_at(t0 + std::max<std::chrono::nanoseconds>(ttfb_.late_bound(host, spec.operation, band, t0),
                                                                cfg_.hedge.late_min));
  bool late = false;
  if (race.first == who::none) late = co_await detail::expiry(race.wake);
  if (detail::fired(co_await asio::this_coro::cancellation_state)) co_return 0;
  if (late && race.first == who::none) co_return 2;
  co_return co_await detail::park(ex);
}

FLOE_DECL boost::asio::awaitable<int> driver::exchange_hedged(std::chrono::steady_clock::time_point until,
                                                              request_spec& spec, http::request& req,
                                                              http::response& res, unsigned attempt, error& out,
                                                              http::exchange_facts& xf) {
  using namespace boost::asio::experimental::awaitable_operators;
  using steady = std::chrono::steady_clock;
  using who = detail::head_race::who;
  auto const t0 = steady::now();
  unsigned const band = band_before(spec, req, t0);
  detail::head_race race(http_.get_executor());
  // Each attempt tells the race when its reply head came; the hooks go with
  // the race, whichever way this ends.
  struct unhook {
    http::request& first;
    request_spec& spec;
    ~unhook() {
      first.on_reply_head = nullptr;
      if (spec.hedge) spec.hedge->req.on_reply_head = nullptr;
    }
  } const hooks{req, spec};
  req.on_reply_head = [&race] { return race.head(who::first); };
  boost::asio::steady_timer dl(http_.get_executor(),
                               until == steady::time_point{} ? steady::time_point::max() : until);
  auto const r = co_await (detail::guarded_exchange(http_, *spec.ep, req, res, attempt, out, xf) ||
                           hedge_after(spec, req, attempt, band, t0, race) || detail::expiry(dl));
  auto const& host = spec.ep->host;
  // The hedge's head came first: the first attempt is cancelled, or ended
  // at its own head, refused, before hedge_after said so.
  if ((r.index() == 1 && std::get<1>(r) == 1) || (r.index() == 0 && race.first == who::hedge)) {
    // The hedge's reply is read to its end, within the deadline.
    ++hedge_stats_.won;
    auto const end = co_await (detail::hedge_end(race) || detail::expiry(dl));
    co_await detail::stop_hedge(race);  // cut by the deadline or the caller
    if (end.index() == 1 && std::get<1>(end)) co_return 3;
    auto& h = *spec.hedge;
    if (!h.out.code && h.res.status != 0) {
      auto const now = steady::now();
      ttfb_.add(host, spec.operation, band_after(spec, req, h.res, now),
                detail::learned_ttfb(h.xf, race.hedge_head - h.sent), now);
    }
    res = std::move(h.res);
    out = std::move(h.out);
    xf = h.xf;
    co_return 1;
  }
  co_await detail::stop_hedge(race);  // the race ended another way: a hedge in flight lost
  if (r.index() == 0) {
    if (!out.code && res.status != 0) {
      auto const now = steady::now();
      auto const head = race.first_head == steady::time_point{} ? now : race.first_head;
      ttfb_.add(host, spec.operation, band_after(spec, req, res, now), detail::learned_ttfb(xf, head - t0), now);
    }
    co_return 0;
  }
  if (r.index() == 1) {
    if (std::get<1>(r) == 2) {
      ++hedge_stats_.late;
      co_return 2;
    }
    co_return 0;
  }
  co_return std::get<2>(r) ? 3 : 0;
}

FLOE_DECL boost::asio::awaitable<bool> driver::fetch_until(std::chrono::steady_clock::time_point until,
                                                           credentials::credentials& c, error& why) {
  using namespace boost::asio::experimental::awaitable_operators;
  boost::asio::steady_timer t(http_.get_executor(), until);
  auto const r = co_await (fetch(c, why) || detail::expiry(t));
  co_return r.index() == 0;
}

}  // namespace floe::service

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
