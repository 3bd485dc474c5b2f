// The refresh policy (refresh/policy.hpp), driven with a test clock: no
// sockets, no sleeps, no randomness beyond the draws each call is given.

#include <floe/refresh/policy.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <vector>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace refresh_policy_test {

using namespace floe::refresh;
using namespace std::chrono_literals;

namespace {

time_point const t0 = time_point(std::chrono::sys_days(std::chrono::year(2024) / 5 / 1));

// Starts from nothing and lands the initial fetch: a set living `life`.
state with_set(std::chrono::seconds life, params p = {}) {
  state s(p);
  auto d = s.on_get(t0);
  REQUIRE(d.what == get_action::wait);
  REQUIRE(d.start_fetch);
  auto o = s.on_fetch_success(d.start_id, t0 + life, t0, 0.5);
  REQUIRE(o.adopted);
  REQUIRE(o.generation == 1);
  return s;
}

}  // namespace

TEST_CASE("advisory window by lifetime") {
  CHECK(advisory_window(15min) == 5min);
  CHECK(advisory_window(20min) == 5min);
  CHECK(advisory_window(21min) == 15min);
  CHECK(advisory_window(60min) == 15min);
  CHECK(advisory_window(90min) == 15min);
  CHECK(advisory_window(91min) == 60min);
  CHECK(advisory_window(12h) == 60min);
  CHECK(advisory_window(0s) == 5min);
}

TEST_CASE("back-off escalates, is capped and jittered but never zero") {
  backoff_params p{1000ms, 8000ms};
  CHECK(backoff_delay(p, 0, 0.5) == 0ms);
  CHECK(backoff_delay(p, 1, 0.0) == 500ms);
  CHECK(backoff_delay(p, 1, 1.0) == 1000ms);
  CHECK(backoff_delay(p, 2, 0.0) == 1000ms);
  CHECK(backoff_delay(p, 3, 1.0) == 4000ms);
  CHECK(backoff_delay(p, 4, 1.0) == 8000ms);
  CHECK(backoff_delay(p, 40, 1.0) == 8000ms);
  CHECK(backoff_delay(p, 1000, 0.0) == 4000ms);
  CHECK(backoff_delay(p, 2, 0.5) == 1500ms);
  CHECK(backoff_delay(p, 2, -3.0) == 1000ms);  // clamped
  CHECK(backoff_delay(p, 2, 7.0) == 2000ms);
  CHECK(backoff_delay({0ms, 0ms}, 3, 0.5) == 0ms);
}

TEST_CASE("first request waits for the initial fetch; later ones are served from cache") {
  state s;
  auto d = s.on_get(t0);
  CHECK(d.what == get_action::wait);
  CHECK(d.start_fetch);
  CHECK(d.reason == fetch_reason::initial);
  auto d2 = s.on_get(t0);  // single flight: joins
  CHECK(d2.what == get_action::wait);
  CHECK_FALSE(d2.start_fetch);
  CHECK(d2.fetch_id == d.start_id);
  CHECK(s.answer(d.start_id, t0) == waiter_action::keep_waiting);
  auto o = s.on_fetch_success(d.start_id, t0 + 1h, t0, 0.5);
  CHECK(o.adopted);
  CHECK(s.answer(d.start_id, t0) == waiter_action::serve);
  CHECK(s.on_get(t0 + 10min).what == get_action::serve);
  CHECK(s.stats().fetches == 1);
  CHECK(s.stats().initial == 1);
  CHECK(s.stats().generation == 1);
  CHECK(s.stats().waits == 2);
}

TEST_CASE("advisory window: one background fetch while the set is served") {
  auto s = with_set(1h);  // advisory 15 min: from t0+45min
  CHECK(s.on_get(t0 + 44min).what == get_action::serve);
  CHECK(s.stats().fetches == 1);
  auto d = s.on_get(t0 + 46min);
  CHECK(d.what == get_action::serve);
  CHECK(d.start_fetch);
  CHECK(d.reason == fetch_reason::scheduled);
  for (int i = 0; i < 10; ++i) {
    auto again = s.on_get(t0 + 47min);
    CHECK(again.what == get_action::serve);
    CHECK_FALSE(again.start_fetch);
  }
  auto o = s.on_fetch_success(d.start_id, t0 + 47min + 1h, t0 + 47min, 0.5);
  CHECK(o.adopted);
  CHECK(o.generation == 2);
  CHECK(s.on_get(t0 + 48min).what == get_action::serve);
  CHECK(s.stats().fetches == 2);
  CHECK(s.stats().scheduled == 1);
  CHECK(s.stats().waits == 1);  // only the very first request waited
}

TEST_CASE("short-lived sets: advisory window of 5 minutes") {
  auto s = with_set(15min);
  CHECK_FALSE(s.on_get(t0 + 9min).start_fetch);
  CHECK(s.on_get(t0 + 10min + 1s).start_fetch);
}

TEST_CASE("mandatory window: requests block on the fetch") {
  auto s = with_set(1h);
  auto d = s.on_get(t0 + 59min + 30s);
  CHECK(d.what == get_action::wait);
  CHECK(d.start_fetch);
  auto j = s.on_get(t0 + 59min + 31s);
  CHECK(j.what == get_action::wait);
  CHECK(j.fetch_id == d.start_id);
  CHECK_FALSE(j.start_fetch);
  s.on_fetch_success(d.start_id, t0 + 2h, t0 + 59min + 32s, 0.5);
  CHECK(s.answer(j.fetch_id, t0 + 59min + 32s) == waiter_action::serve);
}

TEST_CASE("a failed advisory refresh keeps serving the old set and backs off") {
  auto s = with_set(1h);
  auto d = s.on_get(t0 + 50min);
  REQUIRE(d.start_fetch);
  auto o = s.on_fetch_failure(d.start_id, t0 + 50min, 1.0);  // back-off 1 s
  CHECK_FALSE(o.start_fetch);
  CHECK(s.stats().failures == 1);
  CHECK(s.stats().generation == 1);
  auto during = s.on_get(t0 + 50min + 500ms);
  CHECK(during.what == get_action::serve);
  CHECK_FALSE(during.start_fetch);
  auto after = s.on_get(t0 + 50min + 1001ms);
  CHECK(after.what == get_action::serve);
  CHECK(after.start_fetch);
  // Second failure: 2 s.
  s.on_fetch_failure(after.start_id, t0 + 50min + 1001ms, 1.0);
  CHECK(s.stats().failure_streak == 2);
  CHECK_FALSE(s.on_get(t0 + 50min + 2500ms).start_fetch);
  CHECK(s.on_get(t0 + 50min + 3002ms).start_fetch);
}

TEST_CASE("in the mandatory window with fetches failing, the still-valid set is served") {
  auto s = with_set(1h);
  auto d = s.on_get(t0 + 59min + 10s);
  REQUIRE(d.what == get_action::wait);
  s.on_fetch_failure(d.start_id, t0 + 59min + 10s, 1.0);
  CHECK(s.answer(d.fetch_id, t0 + 59min + 10s) == waiter_action::serve);
  CHECK(s.on_get(t0 + 59min + 10s).what == get_action::serve);  // backing off: not blocking
  // Expired: nothing to serve; the failure back-off makes requests fail at once.
  s.on_get(t0 + 59min + 12s);  // starts a fetch (back-off over)
  s.on_fetch_failure(*s.in_flight(), t0 + 60min, 1.0);
  CHECK(s.on_get(t0 + 60min + 1s).what == get_action::fail);
}

TEST_CASE("a refresh that brings no later expiry is a soft failure") {
  auto s = with_set(1h);
  auto d = s.on_get(t0 + 50min);
  auto o = s.on_fetch_success(d.start_id, t0 + 1h, t0 + 50min, 1.0);
  CHECK_FALSE(o.adopted);
  CHECK(o.soft_failure);
  CHECK(o.generation == 1);
  CHECK(s.stats().soft_failures == 1);
  CHECK(s.stats().failure_streak == 1);
  CHECK_FALSE(s.on_get(t0 + 50min + 500ms).start_fetch);  // backing off
}

TEST_CASE("invalidation: however many requests fail together, one forced fetch") {
  auto s = with_set(1h);
  auto inv = s.on_invalidate(1, t0 + 1min, 0.5);
  CHECK(inv.what == invalidate_action::accepted);
  CHECK(inv.start_fetch);
  std::vector<get_decision> waiters;
  for (int i = 0; i < 31; ++i) {
    CHECK(s.on_invalidate(1, t0 + 1min, 0.5).what == invalidate_action::ignored);
  }
  for (int i = 0; i < 32; ++i) waiters.push_back(s.on_get(t0 + 1min));
  for (auto const& w : waiters) {
    CHECK(w.what == get_action::wait);
    CHECK_FALSE(w.start_fetch);
    CHECK(w.fetch_id == inv.start_id);
  }
  auto o = s.on_fetch_success(inv.start_id, t0 + 2h, t0 + 1min, 0.5);
  CHECK(o.generation == 2);
  for (auto const& w : waiters) CHECK(s.answer(w.fetch_id, t0 + 1min) == waiter_action::serve);
  // A late 403 for generation 1 changes nothing.
  CHECK(s.on_invalidate(1, t0 + 2min, 0.5).what == invalidate_action::ignored);
  CHECK(s.stats().fetches == 2);
  CHECK(s.stats().forced == 1);
  CHECK(s.stats().invalidations == 1);
}

TEST_CASE("an invalidated set is never served again, even when the forced fetch fails") {
  auto s = with_set(1h);
  auto inv = s.on_invalidate(1, t0 + 1min, 0.5);
  auto w = s.on_get(t0 + 1min);
  s.on_fetch_failure(inv.start_id, t0 + 1min, 1.0);
  CHECK(s.answer(w.fetch_id, t0 + 1min) == waiter_action::fail);
  CHECK_FALSE(s.servable(t0 + 1min));
  CHECK(s.on_get(t0 + 1min + 100ms).what == get_action::fail);  // failure back-off: fail at once
  auto retry = s.on_get(t0 + 1min + 1001ms);
  CHECK(retry.what == get_action::wait);
  CHECK(retry.reason == fetch_reason::forced);
}

TEST_CASE("a fetch in flight when the invalidation lands is not joined") {
  auto s = with_set(1h);
  auto adv = s.on_get(t0 + 50min);  // advisory fetch #2 in flight
  REQUIRE(adv.start_fetch);
  auto inv = s.on_invalidate(1, t0 + 50min + 1s, 0.5);
  CHECK(inv.what == invalidate_action::accepted);
  CHECK_FALSE(inv.start_fetch);  // single flight: after #2
  auto w = s.on_get(t0 + 50min + 1s);
  CHECK(w.what == get_action::wait);
  CHECK(w.fetch_id > adv.start_id);
  auto o = s.on_fetch_success(adv.start_id, t0 + 2h, t0 + 50min + 2s, 0.5);
  CHECK(o.discarded);
  CHECK_FALSE(o.adopted);
  CHECK(o.start_fetch);
  CHECK(o.start_id == w.fetch_id);
  CHECK(s.answer(w.fetch_id, t0 + 50min + 2s) == waiter_action::keep_waiting);
  auto o2 = s.on_fetch_success(o.start_id, t0 + 2h, t0 + 50min + 3s, 0.5);
  CHECK(o2.adopted);
  CHECK(o2.generation == 2);
  CHECK(s.answer(w.fetch_id, t0 + 50min + 3s) == waiter_action::serve);
  CHECK(s.stats().fetches == 3);
  CHECK(s.stats().discarded == 1);
}

TEST_CASE("an invalidation of an older generation distrusts a newer set fetched before it") {
  auto s = with_set(1h);
  auto adv = s.on_get(t0 + 50min);
  s.on_fetch_success(adv.start_id, t0 + 2h, t0 + 50min, 0.5);  // generation 2
  auto inv = s.on_invalidate(1, t0 + 51min, 0.5);
  CHECK(inv.what == invalidate_action::accepted);
  CHECK(inv.start_fetch);
  CHECK(s.on_get(t0 + 51min).what == get_action::wait);
  CHECK(s.on_invalidate(3, t0 + 51min, 0.5).what == invalidate_action::ignored);  // never handed out
}

TEST_CASE("unproductive forced refreshes back off, escalating; declined meanwhile") {
  params p;
  p.forced = {10'000ms, 80'000ms};
  auto s = with_set(1h, p);
  // A real denial: every set is rejected.
  auto inv = s.on_invalidate(1, t0, 1.0);
  REQUIRE(inv.what == invalidate_action::accepted);
  s.on_fetch_success(inv.start_id, t0 + 2h, t0, 0.5);  // generation 2, forced
  CHECK(s.current_is_forced());
  // Generation 2 rejected too: the forced fetch was unproductive; back-off 10 s.
  auto d = s.on_invalidate(2, t0 + 1s, 1.0);
  CHECK(d.what == invalidate_action::declined);
  REQUIRE(d.backoff_until);
  CHECK(*d.backoff_until == t0 + 11s);
  CHECK(s.stats().unproductive == 1);
  CHECK(s.stats().forced_backoff_level == 1);
  CHECK(s.on_get(t0 + 2s).what == get_action::serve);  // the set stays in use
  CHECK(s.on_invalidate(2, t0 + 5s, 1.0).what == invalidate_action::declined);
  CHECK(s.stats().unproductive == 1);  // counted once per generation
  CHECK(s.stats().declined == 2);
  // After the back-off: accepted, one more forced fetch.
  auto again = s.on_invalidate(2, t0 + 11s, 1.0);
  CHECK(again.what == invalidate_action::accepted);
  CHECK(again.start_fetch);
  s.on_fetch_success(again.start_id, t0 + 2h, t0 + 11s, 0.5);  // generation 3
  // Rejected again: 20 s now.
  auto d2 = s.on_invalidate(3, t0 + 12s, 1.0);
  CHECK(d2.what == invalidate_action::declined);
  CHECK(*d2.backoff_until == t0 + 32s);
  CHECK(s.stats().forced_backoff_level == 2);
  auto a3 = s.on_invalidate(3, t0 + 32s, 1.0);
  s.on_fetch_success(a3.start_id, t0 + 2h, t0 + 32s, 0.5);  // generation 4
  CHECK(*s.on_invalidate(4, t0 + 33s, 1.0).backoff_until == t0 + 33s + 40s);
  auto a4 = s.on_invalidate(4, t0 + 73s, 1.0);
  s.on_fetch_success(a4.start_id, t0 + 2h, t0 + 73s, 0.5);  // generation 5
  CHECK(*s.on_invalidate(5, t0 + 74s, 1.0).backoff_until == t0 + 74s + 80s);
  auto a5 = s.on_invalidate(5, t0 + 154s, 1.0);
  s.on_fetch_success(a5.start_id, t0 + 2h, t0 + 154s, 0.5);  // generation 6
  CHECK(*s.on_invalidate(6, t0 + 155s, 1.0).backoff_until == t0 + 155s + 80s);  // capped
  CHECK(s.stats().forced == 5);
  CHECK(s.stats().unproductive == 5);
}

TEST_CASE("a forced refresh that cures a 403 resets the back-off") {
  params p;
  p.forced = {10'000ms, 80'000ms};
  auto s = with_set(1h, p);
  auto inv = s.on_invalidate(1, t0, 1.0);
  s.on_fetch_success(inv.start_id, t0 + 2h, t0, 0.5);
  s.on_invalidate(2, t0 + 1s, 1.0);  // unproductive: level 1, declined
  auto acc = s.on_invalidate(2, t0 + 11s, 1.0);
  REQUIRE(acc.what == invalidate_action::accepted);
  s.on_fetch_success(acc.start_id, t0 + 2h, t0 + 11s, 0.5);  // generation 3
  s.on_cured(3);
  CHECK(s.stats().cures == 1);
  CHECK(s.stats().forced_backoff_level == 0);
  CHECK_FALSE(s.stats().forced_backoff_until);
  // The next revocation is healed at once.
  auto next = s.on_invalidate(3, t0 + 20s, 1.0);
  CHECK(next.what == invalidate_action::accepted);
  CHECK(next.start_fetch);
  s.on_cured(1);  // not the current set: no effect
  CHECK(s.stats().cures == 1);
}

TEST_CASE("a forced set that serves until its scheduled refresh does not reset the back-off") {
  params p;
  p.forced = {10'000ms, 80'000ms};
  auto s = with_set(1h, p);
  auto inv = s.on_invalidate(1, t0, 1.0);
  s.on_fetch_success(inv.start_id, t0 + 1h, t0, 0.5);  // generation 2, forced
  s.on_invalidate(2, t0 + 1s, 1.0);                  // unproductive, declined
  auto acc = s.on_invalidate(2, t0 + 11s, 1.0);
  s.on_fetch_success(acc.start_id, t0 + 11s + 1h, t0 + 11s, 0.5);  // generation 3, forced
  CHECK(s.stats().forced_backoff_level == 1);
  auto const t1 = t0 + 11s + 50min;
  auto adv = s.on_get(t1);
  REQUIRE(adv.start_fetch);
  s.on_fetch_success(adv.start_id, t0 + 3h, t1, 0.5);  // generation 4, scheduled
  // Serving until the scheduled refresh says nothing about a cure.
  CHECK(s.stats().forced_backoff_level == 1);
  CHECK(s.stats().cures == 0);
  // The scheduled set is rejected: one forced fetch (the back-off ran out long ago) ...
  auto f = s.on_invalidate(4, t1 + 1s, 1.0);
  REQUIRE(f.what == invalidate_action::accepted);
  s.on_fetch_success(f.start_id, t0 + 4h, t1 + 1s, 0.5);  // generation 5, forced
  // ... and when that is rejected too, the back-off escalates from where it was: 20 s.
  auto d = s.on_invalidate(5, t1 + 2s, 1.0);
  CHECK(d.what == invalidate_action::declined);
  CHECK(s.stats().forced_backoff_level == 2);
  REQUIRE(d.backoff_until);
  CHECK(*d.backoff_until == t1 + 2s + 20s);
}

TEST_CASE("only a cure resets: a forced set rejected after serving a long time is still unproductive") {
  params p;
  p.forced = {10'000ms, 80'000ms};
  auto s = with_set(1h, p);
  auto first = s.on_invalidate(1, t0, 0.5);
  s.on_fetch_success(first.start_id, t0 + 2h, t0, 0.5);  // generation 2, forced; no cure reported
  CHECK(s.on_get(t0 + 1min).what == get_action::serve);
  CHECK(s.on_get(t0 + 29min).what == get_action::serve);  // other requests succeed with it
  auto inv = s.on_invalidate(2, t0 + 30min, 1.0);
  CHECK(inv.what == invalidate_action::declined);
  CHECK(s.stats().unproductive == 1);
  CHECK(s.stats().forced_backoff_level == 1);
  REQUIRE(inv.backoff_until);
  CHECK(*inv.backoff_until == t0 + 30min + 10s);
}

TEST_CASE("a real denial on one path while other paths succeed: the back-off only escalates") {
  // The watcher of the issue, with a path its role may not read: a HEAD on
  // it every 20 s for six hours, other paths succeeding in between (they
  // never report a cure: they were never rejected). 1-hour sets, refreshed
  // on schedule. Forced fetches must stay sparse.
  params p;
  p.forced = {5'000ms, 300'000ms};
  auto s = with_set(1h, p);
  std::uint64_t fetches = 0;
  unsigned max_level = 0;
  for (auto t = t0 + 20s; t < t0 + 6h; t += 20s) {
    auto g = s.on_get(t);  // a request on another path
    if (g.start_fetch) {
      ++fetches;
      s.on_fetch_success(g.start_id, t + 1h, t, 0.5);
    }
    auto const gen = s.stats().generation;
    auto d = s.on_get(t + 1s);  // the denied request gets the set ...
    REQUIRE(d.what == get_action::serve);
    auto inv = s.on_invalidate(gen, t + 2s, 0.5);  // ... and its 403
    if (inv.start_fetch) {
      ++fetches;
      s.on_fetch_success(inv.start_id, t + 2s + 1h, t + 2s, 0.5);  // the retry gets 403 too: no cure
    }
    max_level = std::max(max_level, s.stats().forced_backoff_level);
  }
  CHECK(s.stats().cures == 0);
  CHECK(max_level >= 7);  // 5 s doubling up to the 300 s cap, never reset
  // 1080 denied requests; forced fetches at most one per back-off period
  // after the first few, plus the scheduled ones.
  CHECK(s.stats().forced < 100);
  CHECK(fetches < 120);
}

TEST_CASE("a cure of the last forced set counts even after a scheduled set replaced it; other sets cure nothing") {
  params p;
  p.forced = {10'000ms, 80'000ms};
  auto s = with_set(1h, p);
  auto inv = s.on_invalidate(1, t0, 1.0);
  s.on_fetch_success(inv.start_id, t0 + 2h, t0, 0.5);  // generation 2, forced
  s.on_invalidate(2, t0 + 1s, 1.0);                    // unproductive: level 1
  auto acc = s.on_invalidate(2, t0 + 11s, 1.0);
  s.on_fetch_success(acc.start_id, t0 + 11s + 1h, t0 + 11s, 0.5);  // generation 3, forced
  auto adv = s.on_get(t0 + 11s + 50min);
  REQUIRE(adv.start_fetch);
  s.on_fetch_success(adv.start_id, t0 + 3h, t0 + 11s + 50min, 0.5);  // generation 4, scheduled
  s.on_cured(4);  // not from a forced fetch
  s.on_cured(1);
  CHECK(s.stats().cures == 0);
  CHECK(s.stats().forced_backoff_level == 1);
  s.on_cured(3);  // the retry that generation 3 was fetched for reports late
  CHECK(s.stats().cures == 1);
  CHECK(s.stats().forced_backoff_level == 0);
  s.on_cured(3);  // once
  CHECK(s.stats().cures == 1);
}

TEST_CASE("fetch errors never invalidate") {
  auto s = with_set(1h);
  auto d = s.on_get(t0 + 50min);
  s.on_fetch_failure(d.start_id, t0 + 50min, 0.0);
  CHECK(s.servable(t0 + 50min));
  CHECK(s.stats().invalidations == 0);
  CHECK(s.stats().generation == 1);
}

TEST_CASE("sets without expiry are served forever, and can still be invalidated") {
  state s;
  auto d = s.on_get(t0);
  s.on_fetch_success(d.start_id, std::nullopt, t0, 0.5);
  CHECK(s.on_get(t0 + 1000h).what == get_action::serve);
  CHECK(s.on_invalidate(1, t0, 0.5).what == invalidate_action::accepted);
  CHECK(s.on_get(t0).what == get_action::wait);
}

TEST_CASE("an expired set is not served; requests wait for a scheduled fetch") {
  auto s = with_set(1h);
  auto d = s.on_get(t0 + 2h);
  CHECK(d.what == get_action::wait);
  CHECK(d.start_fetch);
  CHECK(d.reason == fetch_reason::scheduled);
}

}  // namespace refresh_policy_test
