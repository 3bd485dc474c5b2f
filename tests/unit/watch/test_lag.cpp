// watch::parse_event_time and watch::lag_tracker: the oldest unregistered
// event's age, on fake clocks.
#include <floe/watch/lag.hpp>

#include <doctest/doctest.h>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace watch_lag_test {

using namespace floe::watch;
using namespace std::chrono_literals;
using wall_time = lag_tracker::wall_time;
using steady = lag_tracker::steady;

namespace {
wall_time at(char const* text) { return parse_event_time(text).value(); }
steady s0() { return steady{} + 1000s; }
lag_tracker::identity id(char const* key) { return {"lake", key, "e", ""}; }
}  // namespace

TEST_CASE("event times as S3 and EventBridge send them, to the millisecond") {
  auto t = parse_event_time("2026-12-01T10:00:00.123Z");
  REQUIRE(t.has_value());
  auto whole = parse_event_time("2026-12-01T10:00:00Z");
  REQUIRE(whole.has_value());
  CHECK(*t - *whole == 123ms);
  CHECK(at("2026-12-01T10:00:01.5Z") - *whole == 1500ms);
  CHECK(at("2026-12-01T10:00:00.999999Z") - *whole == 999ms);
  CHECK(at("2026-12-01T12:00:00+02:00") == *whole);
  CHECK(at("2026-12-01T10:00:00.123456") == *t);  // moto's: no zone, UTC
  CHECK_FALSE(parse_event_time("").has_value());
  CHECK_FALSE(parse_event_time("yesterday").has_value());
  CHECK_FALSE(parse_event_time("2026-13-01T10:00:00Z").has_value());
}

TEST_CASE("the oldest object held counts until it settles") {
  lag_tracker l;
  auto now = at("2026-12-01T10:00:10Z");
  CHECK_FALSE(l.oldest_age(now, s0()));
  l.received(id("a"), at("2026-12-01T10:00:00Z"));
  l.received(id("b"), at("2026-12-01T10:00:07.5Z"));
  CHECK(l.oldest_age(now, s0()) == 10s);
  l.settled(id("a"));
  CHECK(l.oldest_age(now, s0()) == 2500ms);
  l.settled(id("b"));
  CHECK_FALSE(l.oldest_age(now, s0()));
  // An event time ahead of this machine's clock: 0, not negative.
  l.received(id("c"), at("2026-12-01T10:00:20Z"));
  CHECK(l.oldest_age(now, s0()) == 0ms);
}

TEST_CASE("a failed object counts while its message is due back, and a new receive renews it") {
  lag_tracker l(60s);
  auto t0 = at("2026-12-01T10:00:00Z");
  l.received(id("poison"), t0);
  l.failed(id("poison"), s0(), 20s);
  CHECK(l.oldest_age(t0 + 50s, s0() + 79s) == 50s);
  // Received again before it was forgotten: counted on, with its first time.
  l.received(id("poison"), t0 + 5s);
  CHECK(l.oldest_age(t0 + 200s, s0() + 200s) == 200s);
  l.failed(id("poison"), s0() + 200s, 40s);
  CHECK(l.oldest_age(t0 + 299s, s0() + 299s) == 299s);
  // Not back by its back-off plus the slack (the dead-letter queue, or
  // another watcher took it): forgotten.
  CHECK_FALSE(l.oldest_age(t0 + 300s, s0() + 300s));
  CHECK(l.counted() == 0);
  // failed() of an object not counted changes nothing.
  l.failed(id("never"), s0(), 10s);
  CHECK(l.counted() == 0);
}

}  // namespace watch_lag_test
