#pragma once
// Hedged reads' decisions, pure: when a read whose reply head has not begun
// gets a second attempt, and whether one may be sent at all. No clock (the
// caller passes the time), no I/O; the request driver (service/driver.hpp)
// acts on them.
//
// - ttfb_learner: per (host, operation, size band) a window of recent
//   times to first byte; the hedge delay is a high percentile of it,
//   clamped to [floor, ceiling]. Too few recent samples (a cold start): a
//   multiple of the slowest of them, or a start value with fewer than 8, in the
//   same bounds. A first byte later than the delay x late_factor is retried
//   like a timeout, hedging on or off (late_bound).
// - hedge_budget: a token bucket (as gRPC's hedging throttle). Every request
//   deposits max_ratio of a token, a hedge takes one: hedges stay under
//   max_ratio of requests beyond a small burst. A throttling or 503 reply
//   empties it and more (debt): no hedging while the store pushes back.
//
// Not thread-safe: both live beside their client, on its executor.

#include <floe/config.hpp>
#include <floe/retry/size_band.hpp>  // size_band: the key's third part

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace floe::retry {

struct hedge_params {
  /// Hedged reads on (the default) or off. Off, late_bound still holds.
  bool enabled = true;
  /// The delay's bounds, learned or cold.
  std::chrono::milliseconds floor{5};
  std::chrono::milliseconds ceiling{500};
  /// The cold start: with fewer than 8 recent replies the delay is
  /// cold_start (a first request includes connecting, and a process's few
  /// requests, such as a sync's one listing per side, are not hedged for
  /// being slower than the one before); from 8 to min_samples, cold_factor
  /// x the slowest of them (a held reply among the first few is hedged soon;
  /// 1.5x hedges a steady store's replies under 4% of the time there).
  double cold_factor = 1.5;
  std::chrono::milliseconds cold_start{500};
  /// ...and never sooner than cold_floor (nor the floor). 5 ms, the floor:
  /// from 8 replies on, cold_factor x the slowest is the guard against a
  /// store's spread (a process's few requests are under 8), and the 20 ms
  /// this was before the start value held the tail bench's two early held
  /// GETs longest of all.
  std::chrono::milliseconds cold_floor{5};
  /// The percentile of recent times to first byte taken as the delay: a
  /// steady store's replies later than it are hedged, so it sets the
  /// hedges' share of quiet traffic (0.99 of 512: the sixth slowest, about
  /// 1%), which must leave room in max_ratio for the slow ones hedging is
  /// for (0.95 hedged 5% of quiet traffic: with 1% held the budget ran dry).
  double percentile = 0.99;
  /// Samples kept per key, and how many recent ones the percentile needs.
  /// 512: two stalls in a row do not move the delay (of 128, the 99th
  /// percentile was the second slowest, and a brief stall of the store set
  /// every delay for the next 128 replies).
  unsigned window = 512;
  unsigned min_samples = 16;
  /// Samples older than this are not recent (a quiet spell forgets).
  std::chrono::seconds max_age{120};
  /// k: a first byte later than the delay x k is retried like a timeout.
  double late_factor = 4.0;
  /// ...and never sooner than this after the request was sent.
  std::chrono::milliseconds late_min{1000};
  /// The token bucket: hedges per request at most, and the burst allowed:
  /// a slow spell hedges several replies in a row (with 5, the tail bench
  /// ran dry in one and cut a held reply at late_min instead).
  double max_ratio = 0.05;
  double burst = 10.0;
  /// Tokens owed after a throttling or 503 reply: no hedge for
  /// (throttle_debt + 1) / max_ratio requests.
  double throttle_debt = 5.0;
};

class ttfb_learner {
 public:
  using time_point = std::chrono::steady_clock::time_point;
  using duration = std::chrono::nanoseconds;

  /// `p` must outlive the learner.
  explicit ttfb_learner(hedge_params const& p) noexcept : p_(&p) {}

  /// A reply head began `ttfb` after its request's first byte was written
  /// (the driver passes http::exchange_facts::ttfb: no connecting), at `now`.
  FLOE_DECL void add(std::string_view host, std::string_view operation, unsigned band, duration ttfb,
                     time_point now);
  /// The hedge delay for a request starting at `now`.
  FLOE_DECL duration delay(std::string_view host, std::string_view operation, unsigned band, time_point now) const;
  /// A first byte later than this is retried like a timeout.
  FLOE_DECL duration late_bound(std::string_view host, std::string_view operation, unsigned band,
                                time_point now) const;
  /// Recent samples of a key (tests, diagnostics).
  FLOE_DECL unsigned recent(std::string_view host, std::string_view operation, unsigned band, time_point now) const;

 private:
  struct sample {
    duration ttfb;
    time_point at;
  };
  struct ring {
    std::vector<sample> s;  // up to window, oldest overwritten
    std::size_t next = 0;
  };
  static std::string key_of(std::string_view host, std::string_view operation, unsigned band);
  ring const* find(std::string_view host, std::string_view operation, unsigned band) const;

  hedge_params const* p_;
  std::unordered_map<std::string, ring> rings_;
  mutable std::vector<duration> scratch_;  // delay()'s recent samples, reused
};

class hedge_budget {
 public:
  /// `p` must outlive the budget. It starts full (`burst` tokens).
  explicit hedge_budget(hedge_params const& p) noexcept : p_(&p), tokens_(p.burst) {}

  /// A request was sent (a first attempt): deposits max_ratio of a token.
  void on_request() noexcept {
    tokens_ += p_->max_ratio;
    if (tokens_ > p_->burst) tokens_ = p_->burst;
  }
  /// Takes a token for a hedge: false (nothing taken) when fewer than one
  /// is left.
  bool try_hedge() noexcept {
    if (tokens_ < 1.0) return false;
    tokens_ -= 1.0;
    return true;
  }
  /// A throttling or 503 reply: the bucket empties and owes
  /// `throttle_debt`, so hedging stops for (debt + 1) / max_ratio requests
  /// after the last one.
  void on_throttled() noexcept { tokens_ = -p_->throttle_debt; }
  double tokens() const noexcept { return tokens_; }

 private:
  hedge_params const* p_;
  double tokens_;
};

}  // namespace floe::retry

#if defined(FLOE_HEADER_ONLY)
#include <floe/retry/impl/hedge.ipp>
#endif
