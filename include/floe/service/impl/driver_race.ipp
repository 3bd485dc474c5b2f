#pragma once
// The request driver's races (service/driver.hpp): an attempt against the
// operation's deadline, and a hedgeable read against its hedge or its late
// bound (retry/hedge.hpp). Part of driver.ipp, which includes it.
#include <floe/service/impl/driver.ipp>

#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>

// GCC 12 misreads the sized operator delete of Asio's coroutine frames.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

namespace floe::service {

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
                                                          std::chrono::steady_clock::time_point t0) {
  namespace asio = boost::asio;
  using steady = std::chrono::steady_clock;
  co_await asio::this_coro::throw_if_cancelled(false);
  auto const& host = spec.ep->host;
  asio::steady_timer t(http_.get_executor());
  if (cfg_.hedge.enabled) {
    t.expires_at(t0 + ttfb_.delay(host, spec.operation, band, t0));
    if (!co_await detail::expiry(t)) co_return 0;  // the first attempt ended first
    if (detail::fired(co_await asio::this_coro::cancellation_state)) co_return 0;
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
      h.res.clear();
      h.out.clear();
      h.xf = {};
      h.sent = steady::now();
      co_await detail::guarded_exchange(http_, *spec.ep, h.req, h.res, attempt, h.out, h.xf);
      if (!h.out.code && !h.xf.cancelled) co_return 1;
      // The hedge failed: the first attempt decides.
      t.expires_at(steady::time_point::max());
      (void)co_await detail::expiry(t);
      co_return 0;
    }
  }
  // No hedge: a first byte later than the learned bound is cut like a
  // timeout, once the bound is learned.
  if (ttfb_.recent(host, spec.operation, band, t0) < cfg_.hedge.min_samples) {
    t.expires_at(steady::time_point::max());
    (void)co_await detail::expiry(t);
    co_return 0;
  }
  t.expires_at(t0 + std::max<std::chrono::nanoseconds>(ttfb_.late_bound(host, spec.operation, band, t0),
                                                        cfg_.hedge.late_min));
  co_return co_await detail::expiry(t) ? 2 : 0;
}

FLOE_DECL boost::asio::awaitable<int> driver::exchange_hedged(std::chrono::steady_clock::time_point until,
                                                              request_spec& spec, http::request& req,
                                                              http::response& res, unsigned attempt, error& out,
                                                              http::exchange_facts& xf) {
  using namespace boost::asio::experimental::awaitable_operators;
  using steady = std::chrono::steady_clock;
  auto const t0 = steady::now();
  unsigned const band = band_before(spec, req, t0);
  boost::asio::steady_timer dl(http_.get_executor(), until == steady::time_point{} ? steady::time_point::max() : until);
  auto const r = co_await (detail::guarded_exchange(http_, *spec.ep, req, res, attempt, out, xf) ||
                           hedge_after(spec, req, attempt, band, t0) || detail::expiry(dl));
  auto const& host = spec.ep->host;
  if (r.index() == 0) {
    if (!out.code && res.status != 0) {
      auto const now = steady::now();
      ttfb_.add(host, spec.operation, band_after(spec, req, res, now), now - t0, now);
    }
    co_return 0;
  }
  if (r.index() == 1) {
    int const how = std::get<1>(r);
    if (how == 1) {
      auto& h = *spec.hedge;
      ++hedge_stats_.won;
      auto const now = steady::now();
      ttfb_.add(host, spec.operation, band_after(spec, req, h.res, now), now - h.sent, now);
      res = std::move(h.res);
      out = std::move(h.out);
      xf = h.xf;
      co_return 1;
    }
    if (how == 2) {
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
