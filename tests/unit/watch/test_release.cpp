// watch::plan_release and friends: what a batch gives back to the queue when
// it ends (handed back at once on stop; backed off, doubling, after a
// failure; left otherwise), in requests of ten, and what a reply means.
#include <floe/watch/release.hpp>

#include <doctest/doctest.h>

#include <string>
#include <vector>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace watch_release_test {

using namespace floe::watch;
using namespace std::chrono_literals;

namespace {

object_filter lake() {
  object_filter f;
  f.patterns.push_back(pattern::parse("s3://lake/in/**").value());
  f.ledger_bucket = "lake";
  f.ledger_prefix = "ledger/";
  return f;
}

std::string created(std::string const& key, std::string const& etag) {
  return R"({"Records":[{"eventVersion":"2.1","eventSource":"aws:s3","eventTime":"2026-12-01T10:00:00.000Z",)"
         R"("eventName":"ObjectCreated:Put","s3":{"bucket":{"name":"lake"},"object":{"key":")" +
         key + R"(","size":1,"eTag":")" + etag + R"("}}}]})";
}

received_message msg(std::string id, std::string body, std::uint64_t receive_count = 1) {
  return {id, "rh-" + id, std::move(body), receive_count};
}

}  // namespace

TEST_CASE("the back-off doubles with the receive count, from first up to its bound") {
  failure_backoff b{10s, 100s};
  CHECK(backoff_visibility(b, 0) == 10s);  // not known: the first
  CHECK(backoff_visibility(b, 1) == 10s);
  CHECK(backoff_visibility(b, 2) == 20s);
  CHECK(backoff_visibility(b, 3) == 40s);
  CHECK(backoff_visibility(b, 4) == 80s);
  CHECK(backoff_visibility(b, 5) == 100s);
  CHECK(backoff_visibility(b, 1000000) == 100s);
  // A bound below the first is the first; nothing past SQS's 12 hours.
  CHECK(backoff_visibility({60s, 30s}, 3) == 60s);
  CHECK(backoff_visibility({60s, 100000s}, 64) == 43200s);
  CHECK(backoff_visibility({0s, 0s}, 1) == 1s);
}

TEST_CASE("not stopping: a message naming a failed object backs off; done, malformed and undeletable ones stay") {
  auto b = batch::plan({msg("ok", created("in/a", "e1")), msg("bad", created("in/b", "e2"), 3),
                        msg("junk", "not json"), msg("undeleted", created("in/c", "e3"))},
                       lake());
  REQUIRE(b.objects().size() == 3);
  b.set_outcome(0, object_outcome::to_commit);
  b.set_outcome(1, object_outcome::failed, "--exec: exit 3");
  b.set_outcome(2, object_outcome::already);
  b.commit_confirmed();
  // "ok" deleted; "undeleted" settled but its delete failed.
  std::vector<bool> deleted = {true, false, false, false};
  auto r = plan_release(b, deleted, false, {10s, 300s});
  REQUIRE(r.size() == 1);
  CHECK(r[0].receipt_handle == "rh-bad");
  CHECK(r[0].kind == release_kind::back_off);
  CHECK(r[0].visibility == 40s);  // third receive
  CHECK(r[0].message_id == "bad");
  CHECK(r[0].receive_count == 3);
}

TEST_CASE("stopping: every message not deleted is handed back at once, whatever kept it") {
  auto b = batch::plan({msg("ok", created("in/a", "e1")), msg("bad", created("in/b", "e2"), 5),
                        msg("junk", "not json"), msg("cut", created("in/c", "e3"))},
                       lake());
  b.set_outcome(0, object_outcome::to_commit);
  b.set_outcome(1, object_outcome::failed, "HEAD: 500");
  b.commit_confirmed();
  b.abandon("stopped before the batch was done");  // in/c was still in work
  auto r = plan_release(b, {true, false, false, false}, true, {10s, 300s});
  REQUIRE(r.size() == 3);
  CHECK(r[0].receipt_handle == "rh-bad");
  CHECK(r[1].receipt_handle == "rh-junk");
  CHECK(r[2].receipt_handle == "rh-cut");
  for (auto const& e : r) {
    CHECK(e.kind == release_kind::hand_back);
    CHECK(e.visibility == 0s);
  }
  // Nothing deleted yet (a batch cut short before any delete): all four.
  CHECK(plan_release(b, {}, true, {}).size() == 4);
}

TEST_CASE("a receipt handle is released once") {
  std::vector<received_message> in = {msg("a", created("in/a", "e1")), msg("a", created("in/a", "e1"))};
  auto b = batch::plan(in, lake());
  CHECK(plan_release(b, {false, false}, true, {}).size() == 1);
  auto h = hand_back_all({"x", "y", "x", ""});
  REQUIRE(h.size() == 2);
  CHECK(h[0].receipt_handle == "x");
  CHECK(h[1].receipt_handle == "y");
  CHECK(h[1].visibility == 0s);
  CHECK(hand_back_all({}).empty());
}

TEST_CASE("requests carry ten entries at most, Ids their places in the request") {
  std::vector<std::string> handles;
  for (int i = 0; i < 23; ++i) handles.push_back("h" + std::to_string(i));
  auto entries = hand_back_all(handles);
  entries[21].visibility = 40s;
  auto reqs = release_requests("https://q", entries);
  REQUIRE(reqs.size() == 3);
  CHECK(reqs[0].params.entries.size() == 10);
  CHECK(reqs[1].params.entries.size() == 10);
  CHECK(reqs[2].params.entries.size() == 3);
  CHECK(reqs[2].params.queue_url == "https://q");
  CHECK(reqs[2].params.entries[1].id == "1");
  CHECK(reqs[2].params.entries[1].receipt_handle == "h21");
  CHECK(reqs[2].params.entries[1].visibility_timeout == 40s);
  CHECK(reqs[2].entries == std::vector<std::size_t>{20, 21, 22});
  CHECK(release_requests("https://q", {}).empty());
}

TEST_CASE("a reply: released, gone (ReceiptHandleIsInvalid), failed, or not mentioned") {
  auto reqs = release_requests("q", hand_back_all({"a", "b", "c", "d"}));
  REQUIRE(reqs.size() == 1);
  floe::sqs::batch_result r;
  r.successful = {"0", "0", "7"};  // a twice, and an Id the request did not have
  r.failed.push_back({"1", "ReceiptHandleIsInvalid", "gone", true});
  r.failed.push_back({"2", "InternalError", "try again", false});
  auto o = on_release_reply(reqs[0], r);
  CHECK(o.released == std::vector<std::size_t>{0});
  CHECK(o.gone == 1);
  REQUIRE(o.failures.size() == 2);
  CHECK(o.failures[0] == "InternalError: try again");
  CHECK(o.failures[1] == "entry 3: not in the reply");
}

TEST_CASE("a back-off counts from the receive: none is sent when the receive's own timeout covers it") {
  using tp = visibility_keeper::time_point;
  tp const t0{std::chrono::hours(1)};
  visibility_keeper k(60s);
  for (auto const* h : {"rh-first", "rh-second", "rh-gone", "rh-back"}) k.hold(h, t0);
  std::vector<release_entry> in = {
      {"rh-first", 60s, release_kind::back_off, "first", 1},     // the receive's own 60 s: in place
      {"rh-second", 120s, release_kind::back_off, "second", 2},  // 120 s after the receive's reply
      {"rh-gone", 60s, release_kind::back_off, "gone", 1},       // the keeper holds it no more: sent
      {"rh-back", 0s, release_kind::hand_back, "back", 3},       // hand-backs pass as they are
  };
  k.release("rh-gone");
  // Sent at t0, the reply at t0 + 1 s (a long poll), the batch done 1.5 s later.
  auto s = settle_backoffs(in, k, t0 + 1s, t0 + 2500ms);
  REQUIRE(s.in_place.size() == 1);
  CHECK(s.in_place[0].message_id == "first");
  CHECK(s.in_place[0].visibility == 59s);  // about 58.5 s left, rounded up
  REQUIRE(s.send.size() == 3);
  CHECK(s.send[0].message_id == "second");
  CHECK(s.send[0].visibility == 119s);  // 118.5 s left of the 120, rounded up
  CHECK(s.send[1].message_id == "gone");
  CHECK(s.send[1].visibility == 59s);
  CHECK(s.send[2].kind == release_kind::hand_back);
  CHECK(s.send[2].visibility == 0s);
}

TEST_CASE("a back-off the keeper's extension covers is in place; a lapsed one is sent, 1 s at least") {
  using tp = visibility_keeper::time_point;
  tp const t0{std::chrono::hours(1)};
  visibility_keeper k(10s);
  k.hold("rh", t0);
  // Extended 8 s after the receive: invisible until 18 s after it.
  auto due = k.due(t0 + 8s);
  REQUIRE(due.size() == 1);
  floe::sqs::batch_result ok;
  ok.successful = {"0"};
  k.on_reply(due, t0 + 8s, ok);
  auto s = settle_backoffs({{"rh", 10s, release_kind::back_off, "m", 1}}, k, t0, t0 + 9s);
  REQUIRE(s.in_place.size() == 1);
  CHECK(s.in_place[0].visibility == 9s);
  CHECK(s.send.empty());
  // 16 s (more than the timeout), but the extension reaches past it: in place.
  s = settle_backoffs({{"rh", 16s, release_kind::back_off, "m", 2}}, k, t0, t0 + 9s);
  REQUIRE(s.in_place.size() == 1);
  CHECK(s.in_place[0].visibility == 9s);
  // 20 s (the second receive's) is not covered: the 11 s left are asked for.
  s = settle_backoffs({{"rh", 20s, release_kind::back_off, "m", 2}}, k, t0, t0 + 9s);
  REQUIRE(s.send.size() == 1);
  CHECK(s.send[0].visibility == 11s);
  // Held, but its visibility lapsed (extensions failing): sent.
  s = settle_backoffs({{"rh", 10s, release_kind::back_off, "m", 1}}, k, t0, t0 + 19s);
  REQUIRE(s.send.size() == 1);
  CHECK(s.send[0].visibility == 1s);
  // Its time passed already (the keeper no longer holds it): 1 s, not 0.
  k.release_all();
  s = settle_backoffs({{"rh", 20s, release_kind::back_off, "m", 2}}, k, t0, t0 + 30s);
  REQUIRE(s.send.size() == 1);
  CHECK(s.send[0].visibility == 1s);
}

}  // namespace watch_release_test
