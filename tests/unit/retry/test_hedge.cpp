// Hedged reads' pure decisions (retry/hedge.hpp) with a fake clock: the
// delay learned from recent times to first byte, its bounds, the late
// bound, and the token budget that keeps hedges under 5% of requests and
// stops them under throttling.
#include <floe/retry/hedge.hpp>

#include <doctest/doctest.h>

using namespace floe::retry;
using namespace std::chrono_literals;
using steady = std::chrono::steady_clock;

namespace {
struct fake_clock {
  steady::time_point t = steady::time_point(5000s);
};
}  // namespace

TEST_CASE("hedge delay: too few samples give the ceiling; then the 95th percentile of recent ones") {
  hedge_params p;
  ttfb_learner l(p);
  fake_clock c;
  CHECK(l.delay("h", "GetObject", 0, c.t) == 500ms);
  for (int i = 0; i < 15; ++i) l.add("h", "GetObject", 0, 8ms, c.t);
  CHECK(l.delay("h", "GetObject", 0, c.t) == 500ms);  // 15 < min_samples
  l.add("h", "GetObject", 0, 8ms, c.t);
  CHECK(l.delay("h", "GetObject", 0, c.t) == 20ms);  // 8 ms, clamped up to the floor
  // 100 samples (the window keeps 64): 1..64 ms most recent; p95 of 64 is rank 61.
  for (int i = 1; i <= 64; ++i) l.add("h", "GetObject", 0, std::chrono::milliseconds(i), c.t);
  CHECK(l.delay("h", "GetObject", 0, c.t) == 61ms);
  CHECK(l.recent("h", "GetObject", 0, c.t) == 64);
}

TEST_CASE("hedge delay: clamped to the ceiling; learned per host, operation and size band") {
  hedge_params p;
  ttfb_learner l(p);
  fake_clock c;
  for (int i = 0; i < 20; ++i) l.add("slow", "GetObject", 0, 3s, c.t);
  CHECK(l.delay("slow", "GetObject", 0, c.t) == 500ms);
  for (int i = 0; i < 20; ++i) l.add("fast", "GetObject", 0, 40ms, c.t);
  CHECK(l.delay("fast", "GetObject", 0, c.t) == 40ms);
  CHECK(l.delay("fast", "HeadObject", 0, c.t) == 500ms);  // nothing learned for HEAD
  CHECK(l.delay("fast", "GetObject", 2, c.t) == 500ms);   // nor for big objects
  CHECK(size_band(0) == 0);
  CHECK(size_band(1024) == 0);
  CHECK(size_band(64 << 10) == 1);
  CHECK(size_band(1 << 20) == 2);
  CHECK(size_band(std::uint64_t{1} << 40) == 7);
  CHECK(size_band(std::uint64_t{1} << 60) == 8);  // the last band
}

TEST_CASE("hedge delay: samples older than max_age are forgotten") {
  hedge_params p;
  ttfb_learner l(p);
  fake_clock c;
  for (int i = 0; i < 20; ++i) l.add("h", "ListObjectsV2", 0, 30ms, c.t);
  CHECK(l.delay("h", "ListObjectsV2", 0, c.t) == 30ms);
  c.t += 121s;
  CHECK(l.recent("h", "ListObjectsV2", 0, c.t) == 0);
  CHECK(l.delay("h", "ListObjectsV2", 0, c.t) == 500ms);
}

TEST_CASE("late bound: the delay times late_factor, learned or not") {
  hedge_params p;
  ttfb_learner l(p);
  fake_clock c;
  CHECK(l.late_bound("h", "GetObject", 0, c.t) == 2s);
  for (int i = 0; i < 20; ++i) l.add("h", "GetObject", 0, 50ms, c.t);
  CHECK(l.late_bound("h", "GetObject", 0, c.t) == 200ms);
  p.late_factor = 0.5;  // never below the delay itself
  CHECK(l.late_bound("h", "GetObject", 0, c.t) == 50ms);
}

TEST_CASE("hedge budget: a burst, then at most 5% of requests") {
  hedge_params p;
  hedge_budget b(p);
  unsigned hedges = 0;
  for (int i = 0; i < 10000; ++i) {
    b.on_request();
    if (b.try_hedge()) ++hedges;  // every request late: as many hedges as allowed
  }
  CHECK(hedges <= 500 + 5);
  CHECK(hedges >= 495);
}

TEST_CASE("hedge budget: a throttling or 503 reply stops hedging until requests earn it back") {
  hedge_params p;
  hedge_budget b(p);
  REQUIRE(b.try_hedge());
  b.on_throttled();
  unsigned requests = 0;
  while (!b.try_hedge()) {
    b.on_request();
    ++requests;
    REQUIRE(requests < 1000);
  }
  // burst (5) owed plus one token, at 0.05 a request.
  CHECK(requests >= 119);
  CHECK(requests <= 121);
}
