// The ledger under concurrency, on a real store (moto behind the serializing
// proxy, or the real Ceph RGW): eight committers at once, with Ceph's 409
// ConcurrentModification replayed before forwarding on 10% of commit writes
// and Ceph's 500 UnknownError replayed after forwarding (the write landed)
// on some more; every entry ends registered exactly once and the ledger
// verifies.
#include "ledger_support.hpp"

#include <algorithm>
#include <map>
#include <random>
#include <set>

// Its own namespace: it shares a build unit with other test files
// (tests/integration/meson.build).
namespace ledger_ledger_it_it {

using namespace ledger_it;

namespace {

struct committer_stats {
  std::vector<commit_result> results;
  std::string failure;
};

void report(std::vector<committer_stats> const& stats) {
  unsigned writes = 0, races = 0, conflicts = 0, unknown = 0, by_read = 0, checkpoints = 0;
  for (auto const& s : stats) {
    for (auto const& r : s.results) {
      writes += r.writes;
      races += r.lost_races;
      conflicts += r.conflicts;
      unknown += r.unknown;
      by_read += r.confirmed_by_read ? 1 : 0;
      checkpoints += r.checkpoint_written ? 1 : 0;
    }
  }
  MESSAGE("writes " << writes << ", numbers lost to another writer " << races << ", 409s " << conflicts
                    << ", ambiguous replies " << unknown << ", confirmed by reading back " << by_read
                    << ", checkpoints written " << checkpoints);
}

}  // namespace

TEST_CASE("eight concurrent committers x 25 commits, with 409s before and 500s after forwarding: exactly 200 entries") {
  fixture fx("ledger-8x25");
  auto& t = cond_target::get();
  int const n_committers = 8, commits_each = 25;
  std::vector<int> rules;
  rules.push_back(t.control.add_rule(commit_put_rule(fx.bucket, "{\"chance\": 0.10, \"seed\": 1919}",
                                                     raw_reply("ceph-409-concurrentmodification.http", "before"))));
  rules.push_back(t.control.add_rule(commit_put_rule(fx.bucket, "{\"chance\": 0.06, \"seed\": 2020}",
                                                     raw_reply("ceph-pacific-500-unknownerror-race.http", "after"))));
  ledger_config cfg;
  cfg.checkpoints.interval = 20;  // checkpoints raced for too
  auto genesis = fx.open("ledger", cfg);
  REQUIRE_OK(fx.init(*genesis));

  std::vector<std::unique_ptr<ledger>> ledgers;
  for (int i = 0; i < n_committers; ++i) {
    cfg.writer = "committer-" + std::to_string(i);
    ledgers.push_back(fx.open("ledger", cfg));
  }
  std::vector<committer_stats> stats(n_committers);
  int running = n_committers;
  for (int i = 0; i < n_committers; ++i) {
    asio::co_spawn(
        fx.io,
        [&, i]() -> asio::awaitable<void> {
          auto& st = stats[static_cast<std::size_t>(i)];
          auto& l = *ledgers[static_cast<std::size_t>(i)];
          for (int k = 0; k < commits_each; ++k) {
            std::vector<entry> batch{object(fx.bucket, "data/c" + std::to_string(i) + "/part-" + std::to_string(k) + ".parquet")};
            auto r = co_await l.async_commit(std::move(batch), asio::use_awaitable);
            if (!r) {
              st.failure = r.error().what();
              break;
            }
            st.results.push_back(std::move(*r));
          }
          --running;
        },
        asio::detached);
  }
  fx.run_until_done(running, std::chrono::seconds(500));
  report(stats);

  std::set<std::string> committed;
  for (int i = 0; i < n_committers; ++i) {
    auto const& s = stats[static_cast<std::size_t>(i)];
    CHECK_MESSAGE(s.failure.empty(), "committer " << i << ": " << s.failure);
    CHECK(s.results.size() == static_cast<std::size_t>(commits_each));
    for (auto const& r : s.results) {
      CHECK(r.wrote);
      CHECK(r.already.empty());
      REQUIRE(r.committed.size() == 1);
      CHECK_MESSAGE(committed.insert(r.committed[0].key).second, r.committed[0].key << " committed twice");
    }
  }
  CHECK(committed.size() == 200);
  for (std::size_t i = 0; i < rules.size(); ++i) {
    auto const fired = t.control.rule_counter(rules[i], "fired");
    MESSAGE("rule " << i << " fired " << fired << " times");
    CHECK(fired >= 3);
  }
  t.control.delete_rules();

  auto reader = fx.open("ledger", cfg);
  auto rr = fx.refresh(*reader);
  REQUIRE_OK(rr);
  CHECK(reader->size() == 200);
  for (auto const& k : committed) CHECK(reader->contains(object(fx.bucket, k)));
  auto v = fx.verify(*reader);
  REQUIRE_OK(v);
  CHECK_MESSAGE(v->ok(), (v->ok() ? std::string() : v->first_defect->message));
  CHECK(v->entries == 200);
  CHECK(v->commits == 201);  // the genesis and one commit per batch
  CHECK(v->checkpoints_checked >= 5);
}

TEST_CASE("eight committers offering the same 40 objects in different orders register each exactly once") {
  fixture fx("ledger-same40");
  auto& t = cond_target::get();
  int rule = t.control.add_rule(commit_put_rule(fx.bucket, "{\"chance\": 0.10, \"seed\": 77}",
                                                raw_reply("ceph-pacific-500-unknownerror-race.http", "after")));
  auto genesis = fx.open();
  REQUIRE_OK(fx.init(*genesis));
  std::vector<entry> all;
  for (int i = 0; i < 40; ++i) all.push_back(object(fx.bucket, "in/obj " + std::to_string(i) + " +%\xc3\xa9.csv"));
  int const n = 8;
  std::vector<std::unique_ptr<ledger>> ledgers;
  for (int i = 0; i < n; ++i) ledgers.push_back(fx.open());
  std::vector<committer_stats> stats(n);
  int running = n;
  for (int i = 0; i < n; ++i) {
    asio::co_spawn(
        fx.io,
        [&, i]() -> asio::awaitable<void> {
          std::vector<entry> mine = all;
          std::mt19937 rng(static_cast<unsigned>(i) + 1);
          std::shuffle(mine.begin(), mine.end(), rng);
          for (std::size_t k = 0; k < mine.size(); k += 4) {
            std::vector<entry> batch(mine.begin() + static_cast<std::ptrdiff_t>(k),
                                     mine.begin() + static_cast<std::ptrdiff_t>(k + 4));
            auto r = co_await ledgers[static_cast<std::size_t>(i)]->async_commit(std::move(batch), asio::use_awaitable);
            if (!r) {
              stats[static_cast<std::size_t>(i)].failure = r.error().what();
              break;
            }
            stats[static_cast<std::size_t>(i)].results.push_back(std::move(*r));
          }
          --running;
        },
        asio::detached);
  }
  fx.run_until_done(running, std::chrono::seconds(300));
  report(stats);
  std::map<std::string, int> times;
  for (int i = 0; i < n; ++i) {
    auto const& s = stats[static_cast<std::size_t>(i)];
    CHECK_MESSAGE(s.failure.empty(), "committer " << i << ": " << s.failure);
    std::size_t offered = 0;
    for (auto const& r : s.results) {
      offered += r.committed.size() + r.already.size();
      for (auto const& e : r.committed) ++times[e.key];
    }
    CHECK(offered == 40);
  }
  CHECK(times.size() == 40);
  for (auto const& kc : times) CHECK_MESSAGE(kc.second == 1, kc.first << " committed " << kc.second << " times");
  MESSAGE("500 after forwarding fired " << t.control.rule_counter(rule, "fired") << " times");
  t.control.delete_rules();
  auto v = fx.verify(*genesis);
  REQUIRE_OK(v);
  CHECK_MESSAGE(v->ok(), (v->ok() ? std::string() : v->first_defect->message));
  CHECK(v->entries == 40);
}

TEST_CASE("a lost reply and a 500 after the write landed are settled by reading the commit back") {
  fixture fx("ledger-ambiguous");
  auto& t = cond_target::get();
  auto l = fx.open();
  REQUIRE_OK(fx.init(*l));
  t.control.add_rule(commit_put_rule(fx.bucket, "{\"nth\": [1]}", "{\"type\": \"cut\", \"when\": \"after\"}"));
  auto a = fx.commit(*l, {object(fx.bucket, "a")});
  REQUIRE_OK(a);
  CHECK(a->wrote);
  CHECK(a->confirmed_by_read);
  CHECK(a->unknown == 1);
  CHECK(a->number == 1);
  t.control.delete_rules();
  t.control.add_rule(commit_put_rule(fx.bucket, "{\"nth\": [1]}", raw_reply("ceph-pacific-500-unknownerror-race.http", "after")));
  auto b = fx.commit(*l, {object(fx.bucket, "b")});
  REQUIRE_OK(b);
  CHECK(b->confirmed_by_read);
  CHECK(b->number == 2);
  t.control.delete_rules();
  // A 409 before forwarding: nothing landed; the same number is written again.
  t.control.add_rule(commit_put_rule(fx.bucket, "{\"nth\": [1]}", raw_reply("ceph-409-concurrentmodification.http", "before")));
  auto c = fx.commit(*l, {object(fx.bucket, "c")});
  REQUIRE_OK(c);
  CHECK(c->conflicts == 1);
  CHECK(c->writes == 2);
  CHECK(c->number == 3);
  CHECK_FALSE(c->confirmed_by_read);
  t.control.delete_rules();
  // Already registered: nothing written.
  auto d = fx.commit(*l, {object(fx.bucket, "a"), object(fx.bucket, "c")});
  REQUIRE_OK(d);
  CHECK_FALSE(d->wrote);
  CHECK(d->already.size() == 2);
  auto v = fx.verify(*l);
  REQUIRE_OK(v);
  CHECK(v->ok());
  CHECK(v->commits == 4);
}

}  // namespace ledger_ledger_it_it
