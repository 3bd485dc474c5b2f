// The async_update torture: 16 writers x 10 increments of one JSON counter,
// concurrently, on one key, through a private test proxy.
//
//  moto: a seeded fault schedule on the PUTs (the seed is printed; set
//        FLOE_TORTURE_SEED to replay one): 409 ConcurrentModification before
//        forwarding (nothing written), Ceph's 500 UnknownError after
//        forwarding (written, reply replaced), connection cut after
//        forwarding (written, no reply). Each kind must fire at least 5 times.
//        moto decides a conditional PUT in two steps (check, then store)
//        under a threaded server, so two If-Match writes on one base can
//        both win (tests/support/moto_if_match_race.py); AWS and RGW decide
//        atomically. The proxy is told to serialize exchanges per object
//        (POST /serialize) so that moto has a real store's atomicity here.
//  rgw:  the real Ceph RGW's own races (412s and 500 UnknownError), and a
//        few captured 500s replayed after forwarding; no serialization.
// The counter must end at exactly 160 - no update lost, none applied twice.
#include "cond_target.hpp"

#include <floe/s3/conditional.hpp>
#include <floe/s3/update.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>

#include <doctest/doctest.h>

#include <charconv>
#include <map>
#include <cstdio>
#include <random>
#include <string_view>

// Its own namespace: it shares a build unit with other test files
// (tests/integration/meson.build).
namespace conditional_torture_it {

namespace asio = boost::asio;
using namespace std::chrono_literals;
using floe::test::cond_target;
using floe::test::finish;
using namespace floe::s3;

namespace {

#define REQUIRE_OK(r) REQUIRE_MESSAGE((r).has_value(), ((r).has_value() ? std::string() : (r).error().what()))

// {"n": 12} <-> 12. A body that is not a counter is left alone (no change).
std::optional<long> counter_of(std::string_view body) {
  auto const at = body.find(':');
  if (body.substr(0, 5) != "{\"n\":" || at == std::string_view::npos) return std::nullopt;
  auto num = body.substr(at + 1);
  while (!num.empty() && num.front() == ' ') num.remove_prefix(1);
  long v = 0;
  auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), v);
  if (ec != std::errc() || p == num.data() || *p != '}') return std::nullopt;
  return v;
}

std::optional<std::string> increment(std::optional<std::string_view> old) {
  long n = 0;
  if (old) {
    auto v = counter_of(*old);
    if (!v) return std::nullopt;
    n = *v;
  }
  return "{\"n\": " + std::to_string(n + 1) + "}";
}

struct writer_stats {
  unsigned updates = 0, attempts = 0, conflicts = 0, unknown = 0, confirmed = 0;
  std::string failure;
  // Each update's written body and how it was known to land: two updates
  // that both wrote the same value mean the store accepted two conditional
  // writes on one base (or one was wrongly confirmed by a re-read).
  std::vector<std::pair<std::string, bool>> written;
};

constexpr int writers = 16;
constexpr int increments = 10;

// Runs the torture; returns the final body.
std::string run_torture(std::string const& what, std::vector<writer_stats>& stats) {
  auto& t = cond_target::get();
  asio::io_context io;
  auto c = t.make_client(io);
  std::string const bucket = floe::test::unique_bucket(what);
  {
    auto f = c->async_create_bucket(bucket, asio::use_future);
    auto r = finish(io, f);
    REQUIRE_OK(r);
  }
  stats.assign(writers, {});
  std::vector<std::unique_ptr<updater>> ups;
  for (int i = 0; i < writers; ++i) {
    update_config cfg;
    char id[16];
    std::snprintf(id, sizeof id, "w%02d", i);
    cfg.writer_id = id;
    cfg.max_attempts = 2000;
    cfg.deadline = 240s;
    cfg.backoff_base = 5ms;
    cfg.backoff_max = 200ms;
    cfg.content_type = "application/json";
    ups.push_back(std::make_unique<updater>(*c, cfg));
  }
  int running = writers;
  for (int i = 0; i < writers; ++i) {
    asio::co_spawn(
        io,
        [&, i]() -> asio::awaitable<void> {
          auto& st = stats[static_cast<std::size_t>(i)];
          for (int k = 0; k < increments; ++k) {
            update_fn fn = increment;
            auto r = co_await ups[static_cast<std::size_t>(i)]->async_update(bucket, "counter.json", fn,
                                                                              asio::use_awaitable);
            if (!r) {
              st.failure = r.error().what();
              break;
            }
            ++st.updates;
            st.attempts += r->attempts;
            st.conflicts += r->conflicts;
            st.unknown += r->unknown;
            st.confirmed += r->confirmed_by_reread ? 1 : 0;
            st.written.emplace_back(r->body, r->confirmed_by_reread);
          }
          --running;
        },
        asio::detached);
  }
  auto const deadline = std::chrono::steady_clock::now() + 280s;
  while (running > 0 && std::chrono::steady_clock::now() < deadline) {
    if (io.stopped()) io.restart();
    io.run_one_for(100ms);
  }
  REQUIRE_MESSAGE(running == 0, "the writers did not finish within 280 s");
  auto gf = c->async_get_object(bucket, "counter.json", asio::use_future);
  auto g = finish(io, gf);
  REQUIRE_OK(g);
  for (auto const& [k, v] : g->info.metadata)
    if (k == high_water_metadata_name) MESSAGE("final high-water map: " << v);
  // Clean up.
  auto df = c->async_delete_object(bucket, "counter.json", asio::use_future);
  (void)finish(io, df);
  auto bf = c->async_delete_bucket(bucket, asio::use_future);
  (void)finish(io, bf);
  return g->body;
}

void report(std::vector<writer_stats> const& stats) {
  unsigned attempts = 0, conflicts = 0, unknown = 0, confirmed = 0;
  for (std::size_t i = 0; i < stats.size(); ++i) {
    auto const& s = stats[i];
    CHECK_MESSAGE(s.failure.empty(), "writer " << i << " failed: " << s.failure);
    CHECK(s.updates == increments);
    attempts += s.attempts;
    conflicts += s.conflicts;
    unknown += s.unknown;
    confirmed += s.confirmed;
  }
  std::map<std::string, std::vector<std::string>> by_value;
  for (std::size_t i = 0; i < stats.size(); ++i)
    for (auto const& [body, by_reread] : stats[i].written)
      by_value[body].push_back("w" + std::to_string(i) + (by_reread ? " (confirmed by re-read)" : " (200)"));
  for (auto const& [body, who] : by_value) {
    if (who.size() < 2) continue;
    std::string list;
    for (auto const& w : who) list += " " + w;
    FAIL_CHECK("two updates both wrote " << body << ":" << list);
  }
  MESSAGE("write attempts " << attempts << ", conflicts " << conflicts << ", ambiguous replies " << unknown
                            << ", confirmed by re-read " << confirmed);
}

std::string rule_json(std::string const& bucket_re, std::string const& trigger, std::string const& action) {
  return "{\"match\": {\"method\": \"PUT\", \"path\": " + floe::test::json_str(bucket_re) + "}, \"trigger\": " + trigger +
         ", \"action\": " + action + "}";
}

}  // namespace

TEST_CASE("16 writers x 10 increments with no injected faults end at exactly 160") {
  // The store's own races only (on RGW: its 412s and 500 UnknownError).
  auto& t = cond_target::get();
  t.control.reset();
  std::string const serialize = t.is_rgw() ? R"({"enabled": false})" : R"({"enabled": true})";
  t.control.call("POST", "/serialize", serialize);
  std::vector<writer_stats> stats;
  auto const body = run_torture("no-faults", stats);
  report(stats);
  t.control.call("POST", "/serialize", R"({"enabled": false})");
  CHECK(counter_of(body) == 160);
  CHECK(body == "{\"n\": 160}");
}

TEST_CASE("16 writers x 10 increments end at exactly 160") {
  auto& t = cond_target::get();
  t.control.reset();
  std::string const serialize = t.is_rgw() ? R"({"enabled": false})" : R"({"enabled": true})";
  t.control.call("POST", "/serialize", serialize);
  // A fixed default keeps CI deterministic in what the proxy draws; set
  // FLOE_TORTURE_SEED=random (or a number) to explore other schedules.
  std::uint32_t seed = 20261129u;
  if (char const* env = std::getenv("FLOE_TORTURE_SEED"); env && *env)
    seed = std::string_view(env) == "random" ? std::random_device{}() : static_cast<std::uint32_t>(std::stoul(env));
  std::printf("torture seed: %u (replay with FLOE_TORTURE_SEED=%u)\n", seed, seed);
  std::fflush(stdout);
  MESSAGE("torture seed: " << seed);
  std::string const path_re = "^/floe-cond-torture-[^/]+/counter[.]json$";  // the counter's PUTs only
  auto raw = [&](char const* file, char const* when) {
    return std::string("{\"type\": \"reply\", \"when\": \"") + when + "\", \"raw_b64\": \"" +
           floe::test::base64(t.vector(file)) + "\"}";
  };
  std::vector<int> ids;
  std::vector<char const*> names;
  if (!t.is_rgw()) {
    // Each rule draws once per PUT it sees; the first that fires acts.
    ids.push_back(t.control.add_rule(rule_json(
        path_re, "{\"chance\": 0.08, \"seed\": " + std::to_string(seed) + "}",
        raw("ceph-409-concurrentmodification.http", "before"))));
    names.push_back("409 before forwarding");
    ids.push_back(t.control.add_rule(rule_json(
        path_re, "{\"chance\": 0.08, \"seed\": " + std::to_string(seed + 1) + "}",
        raw("ceph-pacific-500-unknownerror-race.http", "after"))));
    names.push_back("500 after forwarding");
    ids.push_back(t.control.add_rule(rule_json(
        path_re, "{\"chance\": 0.08, \"seed\": " + std::to_string(seed + 2) + "}", "{\"type\": \"cut\", \"when\": \"after\"}")));
    names.push_back("cut after forwarding");
  } else {
    ids.push_back(t.control.add_rule(rule_json(
        path_re, "{\"chance\": 0.03, \"seed\": " + std::to_string(seed) + ", \"max\": 6}",
        raw("ceph-pacific-500-unknownerror-race.http", "after"))));
    names.push_back("captured 500 replayed after forwarding");
  }

  std::vector<writer_stats> stats;
  auto const body = run_torture("torture", stats);
  report(stats);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    auto const fired = t.control.rule_counter(ids[i], "fired");
    MESSAGE(std::string(names[i]) << ": fired " << fired << " times");
    if (t.is_rgw())
      CHECK_MESSAGE(fired >= 2, std::string(names[i]) << " fired only " << fired << " times");
    else
      CHECK_MESSAGE(fired >= 5, std::string(names[i]) << " fired only " << fired << " times (seed " << seed << ")");
  }
  t.control.delete_rules();
  t.control.call("POST", "/serialize", R"({"enabled": false})");
  CHECK(counter_of(body) == 160);
  CHECK(body == "{\"n\": 160}");
}

}  // namespace conditional_torture_it
