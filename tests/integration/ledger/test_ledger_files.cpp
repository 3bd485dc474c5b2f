// The ledger's objects on a real store: a new reader starts from the newest
// checkpoint, a hint that lags (or is missing, or wrong) only costs probes,
// a checkpoint that is wrong is not used, and verify finds a corrupted
// commit, a duplicated entry and a checkpoint that disagrees.
#include "ledger_support.hpp"

// Its own namespace: it shares a build unit with other test files
// (tests/integration/meson.build).
namespace ledger_ledger_files_it {

using namespace ledger_it;
using floe::errc;

namespace {

// Commits `n` batches of one object each: obj-<first>, obj-<first+1>, ...
void fill(fixture& fx, ledger& l, int first, int n) {
  for (int i = first; i < first + n; ++i) {
    auto r = fx.commit(l, {object(fx.bucket, "obj-" + std::to_string(i))});
    REQUIRE_OK(r);
    REQUIRE(r->wrote);
  }
}

ledger_config every(std::uint64_t k) {
  ledger_config cfg;
  cfg.checkpoints.interval = k;
  return cfg;
}

}  // namespace

TEST_CASE("no ledger yet: refresh says so, init creates it once, a second init finds it") {
  fixture fx("ledger-init");
  auto l = fx.open("p/q");
  auto r = fx.refresh(*l);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code == errc::not_found);
  CHECK(r.error().diag.message.find("s3://" + fx.bucket + "/p/q/") != std::string::npos);
  auto a = fx.init(*l);
  REQUIRE_OK(a);
  CHECK(a->created);
  auto other = fx.open("p/q/");
  auto b = fx.init(*other);
  REQUIRE_OK(b);
  CHECK_FALSE(b->created);
  CHECK(other->loaded());
  CHECK(other->head() == 0);
  auto g = fx.get("p/q/_log/00000000000000000000.json");
  REQUIRE_OK(g);
  auto c = decode_commit(g->body);
  REQUIRE_OK(c);
  CHECK(c->entries.empty());
}

TEST_CASE("checkpoint, then a new reader starts from it and reads only the commits after it") {
  fixture fx("ledger-cp");
  auto w = fx.open("ledger", every(5));
  REQUIRE_OK(fx.init(*w));
  unsigned written = 0;
  for (int i = 1; i <= 12; ++i) {
    auto r = fx.commit(*w, {object(fx.bucket, "obj-" + std::to_string(i))});
    REQUIRE_OK(r);
    CHECK(r->checkpoint_error.empty());
    CHECK(r->checkpoint_written == (i % 5 == 0));
    written += r->checkpoint_written ? 1 : 0;
  }
  CHECK(written == 2);
  REQUIRE_OK(fx.head("ledger/_checkpoints/00000000000000000005.ndjson"));
  REQUIRE_OK(fx.head("ledger/_checkpoints/00000000000000000010.ndjson"));
  auto hint = fx.get("ledger/_last_checkpoint.json");
  REQUIRE_OK(hint);
  CHECK(decode_hint(hint->body) == 10u);

  auto reader = fx.open("ledger", every(5));
  auto r = fx.refresh(*reader);
  REQUIRE_OK(r);
  CHECK(r->loaded);
  CHECK(r->hint == 10u);
  CHECK(r->checkpoint == 10u);
  CHECK(r->commits_read == 2);
  CHECK(r->head == 12);
  CHECK(reader->size() == 12);
  for (int i = 1; i <= 12; ++i) CHECK(reader->contains(object(fx.bucket, "obj-" + std::to_string(i))));
  // Catching up later reads only what is new.
  fill(fx, *w, 13, 3);
  auto again = fx.refresh(*reader);
  REQUIRE_OK(again);
  CHECK_FALSE(again->loaded);
  CHECK(again->commits_read == 3);
  CHECK(reader->size() == 15);
  // A commit from the reader goes after them.
  auto c = fx.commit(*reader, {object(fx.bucket, "from-reader")});
  REQUIRE_OK(c);
  CHECK(c->number == 16);
  CHECK(c->lost_races == 0);
}

TEST_CASE("a hint that lags, is missing or is wrong: readers probe forward and get it right") {
  fixture fx("ledger-hint");
  auto w = fx.open("ledger", every(5));
  REQUIRE_OK(fx.init(*w));
  fill(fx, *w, 1, 17);  // checkpoints at 5, 10, 15
  auto expect_loaded = [&](std::string const& what, std::optional<std::uint64_t> hint, std::optional<std::uint64_t> cp,
                           unsigned commits_read) {
    CAPTURE(what);
    auto reader = fx.open("ledger", every(5));
    auto r = fx.refresh(*reader);
    REQUIRE_OK(r);
    CHECK(r->hint == hint);
    CHECK(r->checkpoint == cp);
    CHECK(r->commits_read == commits_read);
    CHECK(r->head == 17);
    CHECK(reader->size() == 17);
    MESSAGE(what << ": " << r->probes << " probes");
    return r->probes;
  };
  expect_loaded("current hint", 15, 15, 2);
  fx.overwrite("ledger/_last_checkpoint.json", encode_hint(5));
  auto const lagging = expect_loaded("hint lagging at 5", 5, 15, 2);
  CHECK(lagging >= 4);  // 5, then 10 and 15 found, 20 not (and no commit 20)
  auto del = fx.c->async_delete_object(fx.bucket, "ledger/_last_checkpoint.json", asio::use_future);
  REQUIRE_OK(fx.wait(del));
  expect_loaded("no hint", std::nullopt, 15, 2);
  fx.overwrite("ledger/_last_checkpoint.json", "not a hint");
  expect_loaded("unreadable hint", std::nullopt, 15, 2);
  fx.overwrite("ledger/_last_checkpoint.json", encode_hint(1000));
  expect_loaded("hint past the end", 1000, std::nullopt, 18);  // no checkpoint found from there: the whole log
  // A checkpoint missing in the middle (its write failed): probing goes on past it.
  fx.overwrite("ledger/_last_checkpoint.json", encode_hint(5));
  auto d10 = fx.c->async_delete_object(fx.bucket, "ledger/_checkpoints/00000000000000000010.ndjson", asio::use_future);
  REQUIRE_OK(fx.wait(d10));
  expect_loaded("checkpoint 10 missing", 5, 15, 2);
}

TEST_CASE("a checkpoint that is wrong is not used, and verify names it") {
  fixture fx("ledger-badcp");
  auto w = fx.open("ledger", every(5));
  REQUIRE_OK(fx.init(*w));
  fill(fx, *w, 1, 7);
  // Checkpoint 5 rewritten to hold only four of its five entries.
  auto cp = fx.get("ledger/_checkpoints/00000000000000000005.ndjson");
  REQUIRE_OK(cp);
  std::string text = cp->body;
  text = text.substr(0, text.rfind('\n', text.size() - 2) + 1);
  text.replace(text.find("\"entries\":5"), 11, "\"entries\":4");
  fx.overwrite("ledger/_checkpoints/00000000000000000005.ndjson", text);
  auto v = fx.verify(*w);
  REQUIRE_OK(v);
  REQUIRE_FALSE(v->ok());
  CHECK(v->first_defect->kind == defect_kind::checkpoint_disagrees);
  CHECK(v->first_defect->object == "ledger/_checkpoints/00000000000000000005.ndjson");
  MESSAGE(v->first_defect->message);
  // Cut short instead: a reader refuses it and replays the log from commit 0.
  fx.overwrite("ledger/_checkpoints/00000000000000000005.ndjson", cp->body.substr(0, cp->body.size() / 2));
  auto reader = fx.open("ledger", every(5));
  auto r = fx.refresh(*reader);
  REQUIRE_OK(r);
  CHECK_FALSE(r->checkpoint.has_value());
  CHECK_FALSE(r->checkpoint_rejected.empty());
  CHECK(r->commits_read == 8);
  CHECK(reader->size() == 7);
}

TEST_CASE("verify finds a corrupted commit and a duplicated entry") {
  fixture fx("ledger-verify");
  auto w = fx.open("ledger", every(0));
  REQUIRE_OK(fx.init(*w));
  fill(fx, *w, 1, 6);
  auto ok = fx.verify(*w);
  REQUIRE_OK(ok);
  CHECK(ok->ok());
  CHECK(ok->commits == 7);
  CHECK(ok->entries == 6);

  SUBCASE("a corrupted commit") {
    fx.overwrite("ledger/_log/00000000000000000003.json", "{\"floe_ledger\":1,\"kind\":\"commit\",\"commit\":3,");
    auto v = fx.verify(*w);
    REQUIRE_OK(v);
    REQUIRE_FALSE(v->ok());
    CHECK(v->first_defect->kind == defect_kind::commit_malformed);
    CHECK(v->first_defect->object == "ledger/_log/00000000000000000003.json");
    MESSAGE(v->first_defect->message);
    // A new reader stops there with an error naming it; a committer cannot go past it.
    auto reader = fx.open("ledger", every(0));
    auto r = fx.refresh(*reader);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == errc::malformed_reply);
    CHECK(r.error().diag.message.find("00000000000000000003.json") != std::string::npos);
  }
  SUBCASE("a duplicated entry") {
    // Another program appends a commit that registers obj-2 again.
    commit c;
    c.number = 7;
    c.write_id = "rogue.7";
    c.writer = "not floe";
    c.time = "2025-01-01T00:00:00Z";
    c.entries = {object(fx.bucket, "new"), object(fx.bucket, "obj-2")};
    auto put = fx.put_if("ledger/_log/00000000000000000007.json", encode_commit(c), "", "*");
    REQUIRE_OK(put);
    auto v = fx.verify(*w);
    REQUIRE_OK(v);
    REQUIRE_FALSE(v->ok());
    CHECK(v->first_defect->kind == defect_kind::entry_twice);
    CHECK(v->first_defect->message.find("obj-2") != std::string::npos);
    CHECK(v->first_defect->message.find("already registered by commit 2") != std::string::npos);
  }
  SUBCASE("a commit past a gap") {
    commit c;
    c.number = 9;
    c.write_id = "rogue.9";
    c.entries = {object(fx.bucket, "far")};
    fx.overwrite("ledger/_log/00000000000000000009.json", encode_commit(c));
    auto v = fx.verify(*w);
    REQUIRE_OK(v);
    REQUIRE_FALSE(v->ok());
    CHECK(v->first_defect->kind == defect_kind::commit_after_gap);
  }
}

}  // namespace ledger_ledger_files_it
