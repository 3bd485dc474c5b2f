// watch::reconcile_*: what a reconcile pass lists (each pattern's literal
// prefix, covered ones dropped), which listed objects it works on, and when
// passes run (spread by a random factor), on a fake clock.
#include <floe/watch/reconcile.hpp>

#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace watch_reconcile_test {

using namespace floe::watch;
using namespace std::chrono_literals;

namespace {
pattern pat(char const* p) { return pattern::parse(p).value(); }

object_filter filter(std::vector<char const*> patterns) {
  object_filter f;
  for (auto const* p : patterns) f.patterns.push_back(pat(p));
  f.ledger_bucket = "lake";
  f.ledger_prefix = "ledger/";
  return f;
}
}  // namespace

TEST_CASE("a pattern's literal prefix: up to its first wildcard") {
  CHECK(pat("s3://lake/raw/**/*.parquet").literal_prefix() == "raw/");
  CHECK(pat("s3://lake/raw/2024-*/x").literal_prefix() == "raw/2024-");
  CHECK(pat("s3://lake/raw/").literal_prefix() == "raw/");
  CHECK(pat("s3://lake/a/b/c.csv").literal_prefix() == "a/b/c.csv");
  CHECK(pat("s3://lake").literal_prefix() == "");
  CHECK(pat("s3://lake/**/x").literal_prefix() == "");
  CHECK(pat("s3://lake/*.csv").literal_prefix() == "");
}

TEST_CASE("targets: each bucket and prefix once, a prefix another one covers dropped") {
  auto l = reconcile_targets({pat("s3://lake/raw/2024/**"), pat("s3://lake/raw/**/*.csv"), pat("s3://other/in/"),
                               pat("s3://lake/raw/**/*.json"), pat("s3://lake/rawish/x")});
  CHECK(l == std::vector<reconcile_target>{{"lake", "raw/"}, {"other", "in/"}, {"lake", "rawish/x"}});
  CHECK(reconcile_targets({pat("s3://lake/a/**"), pat("s3://lake")}) == std::vector<reconcile_target>{{"lake", ""}});
  CHECK(reconcile_targets({}).empty());
}

TEST_CASE("a page: objects that match, are not the ledger's own and the ledger lacks") {
  auto f = filter({"s3://lake/**/*.parquet"});
  std::set<std::string> held = {"in/old.parquet"};
  auto known = [&](std::string_view bucket, std::string_view key, std::string_view etag) {
    CHECK(bucket == "lake");
    CHECK(etag.find('"') == std::string_view::npos);
    return held.contains(std::string(key));
  };
  std::vector<listed_object> page = {{"in/new.parquet", "\"e1\"", 5},
                                     {"in/old.parquet", "\"e2\"", 6},
                                     {"in/skip.csv", "\"e3\"", 7},
                                     {"ledger/_log/x.parquet", "\"e4\"", 8},
                                     {"deep/er/y.parquet", "e5", 9}};
  auto w = reconcile_page("lake", page, f, known);
  REQUIRE(w.size() == 2);
  CHECK(w[0].bucket == "lake");
  CHECK(w[0].key == "in/new.parquet");
  CHECK(w[0].etag == "e1");
  CHECK(w[0].size == 5u);
  CHECK(w[0].event_name == "reconcile");
  CHECK(w[0].messages.empty());
  CHECK(w[1].key == "deep/er/y.parquet");
  CHECK(w[1].etag == "e5");
  // No ledger lookup: every match.
  CHECK(reconcile_page("lake", page, f, {}).size() == 3);
}

TEST_CASE("a batch of listed objects: no messages, nothing to delete") {
  object_work w;
  w.bucket = "lake";
  w.key = "in/a";
  w.etag = "e";
  w.messages = {3};
  auto b = batch::of_objects({w});
  REQUIRE(b.objects().size() == 1);
  CHECK(b.messages().empty());
  CHECK(b.objects()[0].messages.empty());
  b.set_outcome(0, object_outcome::to_commit);
  CHECK(b.to_commit() == std::vector<std::size_t>{0});
  b.commit_confirmed();
  CHECK(b.objects()[0].outcome == object_outcome::committed);
  CHECK(b.deletable().empty());
  CHECK(b.nothing_to_do().empty());
}

TEST_CASE("the schedule: the first pass within the first period, then every period times [0.75, 1.25)") {
  using tp = reconcile_schedule::clock::time_point;
  tp const t0 = tp{} + 1000s;
  reconcile_schedule s(60s, t0, 0.5);
  CHECK(s.next() == t0 + 30s);
  CHECK_FALSE(s.due(t0 + 29s));
  CHECK(s.due(t0 + 30s));
  s.started(t0 + 31s, 0.0);
  CHECK(s.next() == t0 + 31s + 45s);
  s.started(t0 + 100s, 0.999);
  CHECK(s.next() > t0 + 100s + 74s);
  CHECK(s.next() < t0 + 100s + 75s);
  CHECK(reconcile_schedule(60s, t0, 0.0).due(t0));
}

}  // namespace watch_reconcile_test
