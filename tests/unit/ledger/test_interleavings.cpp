// Many writers on one in-memory store, their steps interleaved at random,
// with the faults stores show: 409s before anything is written, 5xx after
// the write landed, replies lost before or after it landed, writes that land
// late (after their writer moved on), and failed reads. At the end the log
// must hold every entry exactly once, without gaps, and each writer's
// results must say exactly what the log says.
#include "machine_support.hpp"

#include <doctest/doctest.h>

#include <map>
#include <random>
#include <set>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace ledger_interleavings_test {

using namespace ledger_test;
using floe::errc;

namespace {

struct store {
  std::map<std::uint64_t, std::string> log;
  std::vector<std::pair<std::uint64_t, std::string>> delayed;  // writes still on their way

  bool create(std::uint64_t n, std::string const& body) { return log.emplace(n, body).second; }
};

struct faults {
  double conflict = 0, error_after = 0, lost_before = 0, lost_after = 0, late = 0, read_error = 0;
};

struct writer {
  ledger_state st = loaded_state();
  std::vector<std::vector<entry>> batches;  // still to commit
  std::optional<commit_machine> m;
  step st_step = step::done;
  std::vector<commit_result> results;
  std::vector<floe::error> failures;
  clk::time_point now = t0;
  int calls = 0;
  std::string id;
};

struct sim_result {
  std::map<std::uint64_t, std::string> log;
  std::vector<writer> writers;
};

sim_result simulate(unsigned seed, int n_writers, int commits_each, int batch_size, int universe, faults f,
                    commit_config const& cfg) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  store s;
  s.create(0, other_commit(0, {}, "genesis.0"));
  sim_result out;
  out.writers.resize(static_cast<std::size_t>(n_writers));
  for (int w = 0; w < n_writers; ++w) {
    auto& wr = out.writers[static_cast<std::size_t>(w)];
    wr.id = "w" + std::to_string(w);
    for (int c = 0; c < commits_each; ++c) {
      std::vector<entry> b;
      for (int k = 0; k < batch_size; ++k)  // overlapping batches: writers race for the same entries
        b.push_back(E("obj-" + std::to_string(static_cast<int>(u(rng) * universe))));
      wr.batches.push_back(std::move(b));
    }
  }
  auto land_late = [&](std::size_t i) {
    s.create(s.delayed[i].first, s.delayed[i].second);
    s.delayed.erase(s.delayed.begin() + static_cast<std::ptrdiff_t>(i));
  };
  for (long tick = 0; tick < 2000000; ++tick) {
    bool all_done = true;
    for (auto& wr : out.writers)
      if (!wr.batches.empty() || wr.st_step != step::done) all_done = false;
    if (all_done) break;
    if (!s.delayed.empty() && u(rng) < 0.3) land_late(static_cast<std::size_t>(u(rng) * static_cast<double>(s.delayed.size())));
    auto& wr = out.writers[static_cast<std::size_t>(u(rng) * n_writers)];
    if (wr.st_step == step::done) {
      if (wr.m) {
        auto& o = wr.m->outcome();
        if (o)
          wr.results.push_back(std::move(*o));
        else
          wr.failures.push_back(o.error());
        wr.m.reset();
      }
      if (wr.batches.empty()) continue;
      std::string base = wr.id + "-" + std::to_string(wr.calls++);
      wr.m.emplace(wr.st, std::move(wr.batches.front()), wr.id, base, "t", cfg, wr.now);
      wr.batches.erase(wr.batches.begin());
      wr.st_step = wr.m->start();
      continue;
    }
    auto& m = *wr.m;
    double const r01 = u(rng);
    switch (wr.st_step) {
      case step::write: {
        double const x = u(rng);
        double acc = 0;
        if (x < (acc += f.conflict)) {
          wr.st_step = m.on_write(conflict_409(), wr.now, r01);
        } else if (x < (acc += f.error_after)) {
          s.create(m.number(), m.body());
          wr.st_step = m.on_write(unknown_500(), wr.now, r01);
        } else if (x < (acc += f.lost_before)) {
          wr.st_step = m.on_write(lost(), wr.now, r01);
        } else if (x < (acc += f.lost_after)) {
          s.create(m.number(), m.body());
          wr.st_step = m.on_write(lost(), wr.now, r01);
        } else if (x < (acc += f.late)) {
          s.delayed.emplace_back(m.number(), m.body());
          wr.st_step = m.on_write(lost(), wr.now, r01);
        } else {
          wr.st_step = m.on_write(s.create(m.number(), m.body()) ? written() : failed_412(), wr.now, r01);
        }
        break;
      }
      case step::read: {
        if (u(rng) < f.read_error) {
          wr.st_step = m.on_read(read_failed(), wr.now, r01);
        } else {
          auto it = s.log.find(m.number());
          wr.st_step = m.on_read(it == s.log.end() ? absent() : found(it->second), wr.now, r01);
        }
        break;
      }
      case step::sleep:
        wr.now += std::chrono::duration_cast<clk::duration>(m.sleep());
        wr.st_step = m.on_slept(wr.now);
        break;
      case step::done:
        break;
    }
  }
  for (auto& wr : out.writers) {
    REQUIRE(wr.st_step == step::done);
    if (!wr.m) continue;
    auto& o = wr.m->outcome();
    if (o)
      wr.results.push_back(std::move(*o));
    else
      wr.failures.push_back(o.error());
    wr.m.reset();
  }
  while (!s.delayed.empty()) land_late(0);
  out.log = std::move(s.log);
  return out;
}

// The log is whole, no entry is in it twice, and every writer's results
// agree with it exactly.
void check(sim_result const& r, int universe_seen_min) {
  std::uint64_t n = 0;
  std::map<std::string, std::uint64_t> where;  // entry key -> commit
  std::map<std::uint64_t, commit> commits;
  for (auto const& logged : r.log) {
    std::uint64_t const num = logged.first;
    std::string const& body = logged.second;
    REQUIRE_MESSAGE(num == n, "a gap in the log before commit " << num);
    auto c = decode_commit(body);
    REQUIRE(c.has_value());
    REQUIRE(c->number == num);
    for (auto const& e : c->entries) {
      auto const placed = where.emplace(e.key, num);
      CHECK_MESSAGE(placed.second, "entry " << e.key << " in commits " << placed.first->second << " and " << num);
    }
    commits.emplace(num, std::move(*c));
    ++n;
  }
  std::set<std::uint64_t> claimed;
  std::size_t failures = 0;
  for (auto const& w : r.writers) {
    failures += w.failures.size();
    for (auto const& f : w.failures) CHECK_MESSAGE(f.code == floe::make_error_code(errc::unknown_outcome), f.what());
    for (auto const& res : w.results) {
      for (auto const& e : res.already) CHECK_MESSAGE(where.count(e.key) == 1, "'already' names an unregistered entry");
      if (!res.wrote) continue;
      CHECK_MESSAGE(claimed.insert(res.number).second, "two writers claim commit " << res.number);
      auto const& c = commits.at(res.number);
      CHECK(c.write_id == res.write_id);
      CHECK(c.entries == res.committed);
    }
  }
  // Every commit is claimed by the writer that made it, unless that writer
  // gave up with unknown_outcome (then it may have landed unclaimed).
  if (failures == 0) CHECK(claimed.size() + 1 == commits.size());
  CHECK(static_cast<int>(where.size()) >= universe_seen_min);
  // Each writer's in-memory set is what the log held up to where it read.
  for (auto const& w : r.writers) {
    std::size_t expect = 0;
    for (std::uint64_t i = 1; i < w.st.next(); ++i) expect += commits.at(i).entries.size();
    CHECK(w.st.entries().size() == expect);
  }
}

}  // namespace

TEST_CASE("8 writers x 25 commits, no faults: every entry once") {
  commit_config cfg;
  auto r = simulate(1, 8, 25, 1, 1000000, {}, cfg);  // disjoint entries (almost surely)
  check(r, 190);
  std::size_t total = 0;
  for (auto const& [n, body] : r.log) total += decode_commit(body)->entries.size();
  CHECK(total == 200 - [&] {
    std::size_t dup = 0;
    for (auto const& w : r.writers)
      for (auto const& res : w.results) dup += res.already.size();
    return dup;
  }());
}

TEST_CASE("overlapping batches under every fault, many schedules") {
  commit_config cfg;
  cfg.max_failed_reads = 1000;
  faults f;
  f.conflict = 0.1;
  f.error_after = 0.05;
  f.lost_before = 0.05;
  f.lost_after = 0.05;
  f.late = 0.05;
  f.read_error = 0.1;
  unsigned by_read = 0, races = 0, conflicts = 0, unknown = 0, nothing_new = 0;
  for (unsigned seed = 1; seed <= 60; ++seed) {
    CAPTURE(seed);
    auto r = simulate(seed, 8, 10, 4, 60, f, cfg);
    check(r, 1);
    for (auto const& w : r.writers) {
      CHECK(w.failures.empty());
      for (auto const& res : w.results) {
        by_read += res.confirmed_by_read ? 1 : 0;
        races += res.lost_races;
        conflicts += res.conflicts;
        unknown += res.unknown;
        nothing_new += res.wrote ? 0 : 1;
      }
    }
  }
  // Every path was taken, many times.
  CHECK(by_read > 50);
  CHECK(races > 50);
  CHECK(conflicts > 50);
  CHECK(unknown > 50);
  CHECK(nothing_new > 10);
  MESSAGE("confirmed by reading back " << by_read << ", numbers lost " << races << ", 409s " << conflicts
                                       << ", ambiguous " << unknown << ", nothing new " << nothing_new);
}

TEST_CASE("writers that give up early leave no duplicate and no claimed commit they did not make") {
  commit_config cfg;
  cfg.max_failed_reads = 1;
  cfg.max_writes = 3;
  faults f;
  f.conflict = 0.2;
  f.lost_after = 0.2;
  f.late = 0.2;
  f.read_error = 0.4;
  unsigned gave_up = 0;
  for (unsigned seed = 100; seed < 140; ++seed) {
    CAPTURE(seed);
    auto r = simulate(seed, 6, 8, 3, 40, f, cfg);
    // Failures may be any error here: only the log's exactness matters.
    std::uint64_t n = 0;
    std::set<std::string> seen;
    for (auto const& [num, body] : r.log) {
      REQUIRE(num == n++);
      auto c = decode_commit(body);
      REQUIRE(c.has_value());
      for (auto const& e : c->entries) CHECK_MESSAGE(seen.insert(e.key).second, "entry " << e.key << " twice");
    }
    for (auto const& w : r.writers) {
      gave_up += static_cast<unsigned>(w.failures.size());
      for (auto const& res : w.results) {
        if (!res.wrote) continue;
        auto c = decode_commit(r.log.at(res.number));
        CHECK(c->write_id == res.write_id);
        CHECK(c->entries == res.committed);
      }
    }
  }
  CHECK(gave_up > 0);  // the bounds were really met
}

}  // namespace ledger_interleavings_test
