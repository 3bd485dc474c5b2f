// watch::batch: received messages to verdicts, work items and, once the
// objects are settled, the messages that may be deleted and those kept.
#include <floe/watch/batch.hpp>

#include <doctest/doctest.h>

#include "test_data.hpp"

#include <string>
#include <vector>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace watch_batch_test {

using namespace floe::watch;
using idx = std::vector<std::size_t>;

namespace {

std::string event_file(std::string const& name) { return floe_test::data_file("events/" + name); }

object_filter filter(std::vector<char const*> patterns, std::string ledger_bucket = "lake",
                     std::string ledger_prefix = "ledgers/raw/") {
  object_filter f;
  for (auto const* p : patterns) f.patterns.push_back(pattern::parse(p).value());
  f.ledger_bucket = std::move(ledger_bucket);
  f.ledger_prefix = std::move(ledger_prefix);
  return f;
}

received_message msg(std::string id, std::string body, std::string handle = "") {
  return {id, handle.empty() ? "rh-" + id : handle, std::move(body), 1};
}

// An S3 notification with one record per (event name, key, etag).
std::string records(std::vector<std::vector<std::string>> rs, std::string bucket = "lake") {
  std::string out = R"({"Records":[)";
  for (std::size_t i = 0; i < rs.size(); ++i) {
    if (i) out += ",";
    out += R"({"eventVersion":"2.1","eventSource":"aws:s3","eventTime":"2026-12-01T10:00:00.000Z","eventName":")" +
           rs[i][0] + R"(","s3":{"bucket":{"name":")" + bucket + R"("},"object":{"key":")" + rs[i][1] +
           R"(","size":10,"eTag":")" + rs[i][2] + R"("}}})";
  }
  return out + "]}";
}

}  // namespace

TEST_CASE("verdicts: work, test event, other events, no match, own ledger, malformed") {
  std::vector<received_message> in = {
      msg("work", records({{"ObjectCreated:Put", "in/a.parquet", "e1"}})),
      msg("test", event_file("moto-00-test-event.json")),
      msg("removed", event_file("moto-05-ObjectRemoved-Delete.json")),
      msg("nomatch", records({{"ObjectCreated:Put", "in/a.csv", "e2"}})),
      msg("own", records({{"ObjectCreated:Put", "ledgers/raw/_log/00000000000000000001.json", "e3"}})),
      msg("bad", "not json at all"),
  };
  auto b = batch::plan(in, filter({"s3://lake/**/*.parquet", "s3://lake/ledgers/**"}));
  auto const& p = b.plans();
  REQUIRE(p.size() == 6);
  CHECK(p[0].verdict == message_verdict::work);
  CHECK(p[1].verdict == message_verdict::test_event);
  CHECK(p[2].verdict == message_verdict::not_created);
  CHECK(p[3].verdict == message_verdict::no_match);
  // A pattern that matches the ledger's own keys does not make them work.
  CHECK(p[4].verdict == message_verdict::own_ledger);
  CHECK(p[5].verdict == message_verdict::malformed);
  CHECK_FALSE(p[5].reason.empty());
  CHECK(b.nothing_to_do() == idx{1, 2, 3, 4});
  CHECK(b.malformed() == idx{5});
  REQUIRE(b.objects().size() == 1);
  CHECK(b.objects()[0].key == "in/a.parquet");
  CHECK(b.objects()[0].etag == "e1");
  CHECK(b.objects()[0].messages == idx{0});
}

TEST_CASE("the ledger's prefix is the ledger's only in its own bucket") {
  auto f = filter({"s3://other/**"}, "lake", "ledgers/raw/");
  CHECK(f.is_own_ledger("lake", "ledgers/raw/_log/1.json"));
  CHECK_FALSE(f.is_own_ledger("lake", "ledgers/rawx"));
  CHECK_FALSE(f.is_own_ledger("other", "ledgers/raw/_log/1.json"));
  auto whole = filter({}, "lake", "");
  CHECK(whole.is_own_ledger("lake", "anything"));
  auto b = batch::plan({msg("m", records({{"ObjectCreated:Put", "ledgers/raw/x", "e"}}, "other"))}, f);
  CHECK(b.plans()[0].verdict == message_verdict::work);
}

TEST_CASE("moto's multipart upload: Put and CompleteMultipartUpload for one object are one work item") {
  std::vector<received_message> in = {msg("put", event_file("moto-02-ObjectCreated-Put.json")),
                                      msg("complete", event_file("moto-03-ObjectCreated-CompleteMultipartUpload.json"))};
  auto b = batch::plan(in, filter({"s3://lake/in/**"}));
  REQUIRE(b.objects().size() == 1);
  auto const& w = b.objects()[0];
  CHECK(w.key == "in/big.parquet");  // %2F decoded
  CHECK(w.etag == "ad75efb1f93d0873aa6555e8c351656d-2");
  CHECK(w.messages == idx{0, 1});
  CHECK(b.plans()[0].objects == idx{0});
  CHECK(b.plans()[1].objects == idx{0});
  b.set_outcome(0, object_outcome::to_commit);
  CHECK_FALSE(b.settled());
  CHECK(b.deletable().empty());
  b.commit_confirmed();
  CHECK(b.settled());
  CHECK(b.deletable() == idx{0, 1});
  CHECK(b.kept().empty());
}

TEST_CASE("a failing object keeps only its own messages") {
  std::vector<received_message> in = {
      msg("a", records({{"ObjectCreated:Put", "in/a.parquet", "ea"}})),
      msg("b", records({{"ObjectCreated:Put", "in/b.parquet", "eb"}})),
      msg("ab", records({{"ObjectCreated:Put", "in/a.parquet", "ea"}, {"ObjectCreated:Put", "in/c.parquet", "ec"}})),
      msg("d", records({{"ObjectCreated:Put", "in/d.parquet", "ed"}})),
      msg("e", records({{"ObjectCreated:Put", "in/e.parquet", "ee"}})),
      msg("bad", "{}"),
  };
  auto b = batch::plan(in, filter({"s3://lake/in/*.parquet"}));
  REQUIRE(b.objects().size() == 5);  // a, b, c, d, e
  CHECK(b.plans()[2].objects == idx{0, 2});
  b.set_outcome(0, object_outcome::to_commit);
  b.set_outcome(1, object_outcome::failed, "exec exited 3");
  b.set_outcome(2, object_outcome::to_commit);
  b.set_outcome(3, object_outcome::vanished, "404");
  b.set_outcome(4, object_outcome::already);
  CHECK(b.to_commit() == idx{0, 2});
  b.commit_confirmed();
  CHECK(b.settled());
  CHECK(b.deletable() == idx{0, 2, 3, 4});
  CHECK(b.kept() == idx{1, 5});  // the failed object's message, and the malformed one
}

TEST_CASE("a failed commit keeps the messages of every object it held, not the others") {
  std::vector<received_message> in = {msg("a", records({{"ObjectCreated:Put", "in/a.parquet", "ea"}})),
                                      msg("b", records({{"ObjectCreated:Put", "in/b.parquet", "eb"}}))};
  auto b = batch::plan(in, filter({"s3://lake/in/"}));
  b.set_outcome(0, object_outcome::to_commit);
  b.set_outcome(1, object_outcome::replaced, "412");
  b.commit_failed("commit: unknown outcome");
  CHECK(b.objects()[0].outcome == object_outcome::failed);
  CHECK(b.objects()[0].reason == "commit: unknown outcome");
  CHECK(b.deletable() == idx{1});
  CHECK(b.kept() == idx{0});
}

TEST_CASE("abandoning a batch fails what is not settled; a pending object is never deletable") {
  std::vector<received_message> in = {msg("a", records({{"ObjectCreated:Put", "in/a", "ea"}})),
                                      msg("b", records({{"ObjectCreated:Put", "in/b", "eb"}}))};
  auto b = batch::plan(in, filter({"s3://lake/in/*"}));
  b.set_outcome(1, object_outcome::already);
  CHECK(b.deletable() == idx{1});
  CHECK(b.kept() == idx{0});  // pending: not settled, so not deletable
  b.abandon("stopping");
  CHECK(b.settled());
  CHECK(b.objects()[0].outcome == object_outcome::failed);
  CHECK(b.kept() == idx{0});
}

TEST_CASE("records of one message that mix work and nothing count the ignored ones") {
  auto body = records({{"ObjectCreated:Put", "in/a.parquet", "e1"},
                       {"ObjectRemoved:Delete", "in/b.parquet", "e2"},
                       {"ObjectCreated:Copy", "elsewhere/c", "e3"}});
  auto b = batch::plan({msg("m", body)}, filter({"s3://lake/in/*.parquet"}));
  CHECK(b.plans()[0].verdict == message_verdict::work);
  CHECK(b.plans()[0].records == 3);
  CHECK(b.plans()[0].records_ignored == 2);
  CHECK(b.objects().size() == 1);
}

TEST_CASE("same key, different ETags: two items (the older one's HEAD will say replaced)") {
  auto b = batch::plan({msg("1", records({{"ObjectCreated:Put", "in/k", "e1"}})),
                        msg("2", records({{"ObjectCreated:Put", "in/k", "e2"}}))},
                       filter({"s3://lake/in/*"}));
  CHECK(b.objects().size() == 2);
}

TEST_CASE("SNS and EventBridge bodies plan like plain notifications") {
  auto b = batch::plan({msg("sns", event_file("moto-sns-01-ObjectCreated-Put.json")),
                        msg("eb", event_file("moto-eventbridge-00-ObjectCreated.json")),
                        msg("sns-test", event_file("moto-sns-00-test-event.json")),
                        msg("eb-tags", event_file("moto-eventbridge-01-ObjectTagsAdded.json"))},
                       filter({"s3://lake/**", "s3://lake2/**"}));
  CHECK(b.plans()[0].verdict == message_verdict::work);
  CHECK(b.plans()[0].sns_envelope);
  CHECK(b.plans()[1].verdict == message_verdict::work);
  CHECK(b.plans()[1].format == event_format::eventbridge);
  CHECK(b.plans()[2].verdict == message_verdict::test_event);
  CHECK(b.plans()[3].verdict == message_verdict::not_created);
  for (auto const& w : b.objects()) CHECK_FALSE(w.key.empty());
}

TEST_CASE("receipt handles: each once, in first-seen order") {
  auto body = records({{"ObjectCreated:Put", "in/a", "e"}});
  auto b = batch::plan({msg("1", body, "h1"), msg("2", body, "h2"), msg("1", body, "h1")}, filter({"s3://lake/in/*"}));
  CHECK(receipt_handles(b, {0, 1, 2}) == std::vector<std::string>{"h1", "h2"});
  CHECK(receipt_handles(b, {2, 1}) == std::vector<std::string>{"h1", "h2"});
}

TEST_CASE("--removals: removal events become removal items; delete markers name no version; newest sequencer kept") {
  auto body = [](std::string name, std::string key, std::string version, std::string seq) {
    return R"({"Records":[{"eventSource":"aws:s3","eventName":")" + name +
           R"(","s3":{"bucket":{"name":"lake"},"object":{"key":")" + key + R"(","eTag":"e1","size":3,"versionId":")" +
           version + R"(","sequencer":")" + seq + R"("}}}]})";
  };
  std::vector<received_message> in{msg("1", body("ObjectRemoved:Delete", "in/a", "v1", "00aa")),
                                    msg("2", body("ObjectRemoved:DeleteMarkerCreated", "in/b", "marker", "0010")),
                                    msg("3", body("ObjectRemoved:Delete", "in/a", "v1", "00AB")),
                                    msg("4", body("ObjectCreated:Put", "in/a", "v2", "00AC"))};
  auto off = batch::plan(in, filter({"s3://lake/in/*"}));
  CHECK(off.plans()[0].verdict == message_verdict::not_created);
  CHECK(off.objects().size() == 1);
  auto f = filter({"s3://lake/in/*"});
  f.removals = true;
  auto b = batch::plan(in, f);
  CHECK(b.plans()[0].verdict == message_verdict::work);
  REQUIRE(b.objects().size() == 3);
  auto const& a = b.objects()[0];
  CHECK(a.removal);
  CHECK(a.etag.empty());  // a removal has no ETag (moto sends one)
  CHECK(a.version_id == "v1");
  CHECK(a.sequencer == "00AB");  // the newer of the two events for it, upper-case
  CHECK(a.messages == idx{0, 2});
  CHECK(b.objects()[1].removal);
  CHECK(b.objects()[1].version_id.empty());  // the marker's id: every version goes
  CHECK_FALSE(b.objects()[2].removal);
  CHECK(b.objects()[2].sequencer == "00AC");
  auto bad = batch::plan({msg("5", body("ObjectRemoved:Delete", "in/a", "v1", "not-hex"))}, f);
  CHECK(bad.plans()[0].verdict == message_verdict::malformed);
  CHECK(bad.plans()[0].reason.find("sequencer") != std::string::npos);
}

}  // namespace watch_batch_test
