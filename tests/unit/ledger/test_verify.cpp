// log_verifier: a whole ledger passes; each kind of defect is found and
// named, the first one first.
#include "machine_support.hpp"

#include <floe/ledger/verify.hpp>

#include <doctest/doctest.h>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace ledger_verify_test {

using namespace ledger_test;

namespace {

std::string const P = "p/";

// A log of `n` commits after the genesis, commit i holding entries k<i>a, k<i>b.
std::vector<std::string> make_log(int n) {
  std::vector<std::string> log{other_commit(0, {}, "g.0")};
  for (int i = 1; i <= n; ++i)
    log.push_back(other_commit(static_cast<std::uint64_t>(i), {E("k" + std::to_string(i) + "a"), E("k" + std::to_string(i) + "b")},
                               "w." + std::to_string(i)));
  return log;
}

entry_set state_at(std::vector<std::string> const& log, std::uint64_t n) {
  entry_set s;
  for (std::uint64_t i = 0; i <= n; ++i) {
    auto c = decode_commit(log[i]);
    for (auto const& e : c->entries) s.insert(e);
  }
  return s;
}

struct checkpoint_file {
  std::uint64_t n;
  std::string text;
};

// Runs the verifier as ledger::async_verify does.
verify_report verify(std::vector<std::string> const& log, std::vector<checkpoint_file> const& cps,
                     std::vector<std::string> extra_log_keys = {}, std::vector<std::string> extra_cp_keys = {}) {
  log_verifier v(P);
  std::vector<std::string> lk = std::move(extra_log_keys), ck = std::move(extra_cp_keys);
  for (std::size_t i = 0; i < log.size(); ++i) lk.push_back(commit_key(P, i));
  for (auto const& c : cps) ck.push_back(checkpoint_key(P, c.n));
  v.listed(lk, ck);
  for (std::uint64_t n = 0;; ++n) {
    if (n >= log.size()) {
      v.end_of_log(n);
      break;
    }
    if (!v.add_commit(n, log[n])) break;
    for (auto const& c : cps) {
      if (c.n != n) continue;
      auto& reader = v.begin_checkpoint(n);
      auto r = reader.feed(c.text);
      if (r) r = reader.finish();
      if (!v.end_checkpoint(r)) break;
    }
    if (v.failed()) break;
  }
  return v.finish();
}

}  // namespace

TEST_CASE("a whole ledger with checkpoints verifies") {
  auto log = make_log(12);
  auto r = verify(log, {{5, encode_checkpoint(5, state_at(log, 5))}, {10, encode_checkpoint(10, state_at(log, 10))}});
  CHECK(r.ok());
  CHECK(r.commits == 13);
  CHECK(r.entries == 24);
  CHECK(r.checkpoints_checked == 2);
}

TEST_CASE("no genesis: no ledger") {
  auto r = verify({}, {});
  REQUIRE_FALSE(r.ok());
  CHECK(r.first_defect->kind == defect_kind::no_genesis);
  CHECK(r.first_defect->object == "p/_log/00000000000000000000.json");
}

TEST_CASE("a corrupted commit is named") {
  auto log = make_log(5);
  log[3] = "{\"floe_ledger\":1,\"kind\":\"commit\",garbage";
  auto r = verify(log, {});
  REQUIRE_FALSE(r.ok());
  CHECK(r.first_defect->kind == defect_kind::commit_malformed);
  CHECK(r.first_defect->object == commit_key(P, 3));
  CHECK(r.first_defect->message.find("commit 3 (p/_log/00000000000000000003.json) does not parse") != std::string::npos);
  CHECK(r.commits == 3);
}

TEST_CASE("a commit that names another number") {
  auto log = make_log(3);
  log[2] = other_commit(7, {E("z")});
  auto r = verify(log, {});
  REQUIRE_FALSE(r.ok());
  CHECK(r.first_defect->kind == defect_kind::commit_misnumbered);
}

TEST_CASE("an entry registered twice names both commits") {
  auto log = make_log(6);
  log.push_back(other_commit(7, {E("new"), E("k2b")}));
  auto r = verify(log, {});
  REQUIRE_FALSE(r.ok());
  CHECK(r.first_defect->kind == defect_kind::entry_twice);
  CHECK(r.first_defect->message.find("lake/k2b") != std::string::npos);
  CHECK(r.first_defect->message.find("in commit 7") != std::string::npos);
  CHECK(r.first_defect->message.find("already registered by commit 2") != std::string::npos);
  // Twice within one commit.
  auto log2 = make_log(1);
  log2.push_back(other_commit(2, {E("x"), E("x")}));
  auto r2 = verify(log2, {});
  REQUIRE_FALSE(r2.ok());
  CHECK(r2.first_defect->kind == defect_kind::entry_twice);
}

TEST_CASE("checkpoints that disagree with the replay") {
  auto log = make_log(12);
  SUBCASE("one entry missing") {
    auto s = state_at(log, 10);
    entry_set t;
    for (std::size_t i = 1; i < s.size(); ++i) t.insert(s.at(i));
    auto r = verify(log, {{10, encode_checkpoint(10, t)}});
    REQUIRE_FALSE(r.ok());
    CHECK(r.first_defect->kind == defect_kind::checkpoint_disagrees);
    CHECK(r.first_defect->message.find("missing: lake/k1a") != std::string::npos);
  }
  SUBCASE("a checkpoint of an earlier state under a later number") {
    std::string text = encode_checkpoint(9, state_at(log, 9));
    text.replace(text.find("\"commit\":9"), 10, "\"commit\":10");
    auto r = verify(log, {{10, text}});
    REQUIRE_FALSE(r.ok());
    CHECK(r.first_defect->kind == defect_kind::checkpoint_disagrees);
    CHECK(r.first_defect->message.find("holds 18 entries where commits 0..10 leave 20") != std::string::npos);
    CHECK(r.first_defect->message.find("missing: lake/k10a") != std::string::npos);
  }
  SUBCASE("an entry no commit registered") {
    auto s = state_at(log, 10);
    entry_set t;
    for (std::size_t i = 0; i + 1 < s.size(); ++i) t.insert(s.at(i));
    t.insert(E("stranger"));
    auto r = verify(log, {{10, encode_checkpoint(10, t)}});
    REQUIRE_FALSE(r.ok());
    CHECK(r.first_defect->kind == defect_kind::checkpoint_disagrees);
    CHECK(r.first_defect->message.find("lake/stranger") != std::string::npos);
  }
  SUBCASE("an entry twice (and one missing, so the count is right)") {
    auto s = state_at(log, 10);
    std::string text = encode_checkpoint(10, s);
    auto const first = text.find('\n') + 1;
    auto const second = text.find('\n', first) + 1;
    auto const last = text.rfind('\n', text.size() - 2) + 1;
    text = text.substr(0, last) + text.substr(first, second - first);  // the last entry replaced by the first
    auto r = verify(log, {{10, text}});
    REQUIRE_FALSE(r.ok());
    CHECK(r.first_defect->kind == defect_kind::checkpoint_malformed);
    CHECK(r.first_defect->message.find("appears twice") != std::string::npos);
  }
  SUBCASE("one that does not parse") {
    auto r = verify(log, {{5, "nonsense\n"}});
    REQUIRE_FALSE(r.ok());
    CHECK(r.first_defect->kind == defect_kind::checkpoint_malformed);
    CHECK(r.first_defect->object == checkpoint_key(P, 5));
  }
}

TEST_CASE("what only a listing shows: a gap, a checkpoint past the end, a stray object") {
  auto log = make_log(4);
  SUBCASE("a commit after a gap") {
    auto r = verify(log, {}, {commit_key(P, 9)});
    REQUIRE_FALSE(r.ok());
    CHECK(r.first_defect->kind == defect_kind::commit_after_gap);
    CHECK(r.first_defect->message.find("commit 9") != std::string::npos);
    CHECK(r.first_defect->message.find("commit 5 does not") != std::string::npos);
  }
  SUBCASE("a checkpoint past the end") {
    auto r = verify(log, {}, {}, {checkpoint_key(P, 100)});
    REQUIRE_FALSE(r.ok());
    CHECK(r.first_defect->kind == defect_kind::checkpoint_after_end);
  }
  SUBCASE("a stray object") {
    auto r = verify(log, {}, {"p/_log/notes.txt"});
    REQUIRE_FALSE(r.ok());
    CHECK(r.first_defect->kind == defect_kind::stray_object);
    CHECK(r.first_defect->object == "p/_log/notes.txt");
  }
  SUBCASE("the first defect is the one reported") {
    log[2] = "garbage";
    auto r = verify(log, {}, {"p/_log/notes.txt"});
    REQUIRE_FALSE(r.ok());
    CHECK(r.first_defect->kind == defect_kind::commit_malformed);
  }
}

}  // namespace ledger_verify_test
