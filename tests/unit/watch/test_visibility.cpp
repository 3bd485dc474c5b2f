// watch::visibility_keeper: held messages are extended before their
// visibility runs out, counted from when the receive was sent.
#include <floe/watch/visibility.hpp>

#include <doctest/doctest.h>

#include <string>
#include <vector>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace watch_visibility_test {

using namespace floe::watch;
using namespace std::chrono_literals;
using tp = visibility_keeper::time_point;

namespace {
tp t0() { return tp{} + 1000s; }

floe::sqs::batch_result ok(std::vector<std::string> const& h) {
  floe::sqs::batch_result r;
  for (std::size_t i = 0; i < h.size(); ++i) r.successful.push_back(std::to_string(i));
  return r;
}
}  // namespace

TEST_CASE("extension is due when half the timeout is left, counted from the receive's sending") {
  visibility_keeper k(30s);
  CHECK(k.margin() == 15s);
  CHECK_FALSE(k.next_due());
  k.hold("a", t0());
  k.hold("b", t0() + 2s);
  REQUIRE(k.next_due());
  CHECK(*k.next_due() == t0() + 15s);
  CHECK(k.due(t0() + 14s).empty());
  auto d = k.due(t0() + 15s);
  CHECK(d == std::vector<std::string>{"a"});
  CHECK(*k.next_due() == t0() + 17s);  // b; a is in flight
  auto p = k.params("u", d);
  REQUIRE(p.entries.size() == 1);
  CHECK(p.entries[0].visibility_timeout == 30s);
  CHECK(p.entries[0].receipt_handle == "a");
  CHECK(k.on_reply(d, t0() + 15s, ok(d)) == 1);
  CHECK(*k.expires("a") == t0() + 45s);
  CHECK(*k.next_due() == t0() + 17s);
  // The extension always comes before the visibility ends.
  for (auto now = t0(); now < t0() + 600s; now += 1s) {
    auto due = k.due(now);
    if (!due.empty()) k.on_reply(due, now, ok(due));
    CHECK(*k.expires("a") > now);
    CHECK(*k.expires("b") > now);
  }
}

TEST_CASE("at most 10 handles per request; a released handle is no longer extended") {
  visibility_keeper k(20s, 5s);
  CHECK(k.margin() == 5s);
  for (int i = 0; i < 12; ++i) k.hold("h" + std::to_string(i), t0());
  k.release("h0");
  CHECK(k.held() == 11);
  auto d = k.due(t0() + 15s);
  CHECK(d.size() == 10);
  auto rest = k.due(t0() + 15s);
  CHECK(rest.size() == 1);
  k.release_all();
  CHECK_FALSE(k.next_due());
}

TEST_CASE("a margin larger than half the timeout is half the timeout; a timeout under 2 s is 2 s") {
  CHECK(visibility_keeper(10s, 9s).margin() == 5s);
  CHECK(visibility_keeper(0s).timeout() == 2s);
}

TEST_CASE("ReceiptHandleIsInvalid drops the handle; other failures and errors leave it due again") {
  visibility_keeper k(10s);
  k.hold("a", t0());
  k.hold("b", t0());
  k.hold("c", t0());
  auto d = k.due(t0() + 6s);
  REQUIRE(d.size() == 3);
  floe::sqs::batch_result r;
  r.successful = {"2"};
  r.failed.push_back({"0", "ReceiptHandleIsInvalid", "", true, false});
  r.failed.push_back({"1", "InternalError", "", false, false});
  CHECK(k.on_reply(d, t0() + 6s, r) == 1);
  CHECK_FALSE(k.holds("a"));
  CHECK(k.holds("b"));
  CHECK(k.due(t0() + 6s) == std::vector<std::string>{"b"});
  k.on_error({"b"});
  CHECK(k.due(t0() + 7s) == std::vector<std::string>{"b"});
}

}  // namespace watch_visibility_test
