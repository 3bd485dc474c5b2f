// The ledger's cost at two sizes: commits of 10 entries into a ledger that
// already holds ENTRIES entries (filled first with commits of 1,000), with
// the default checkpoint policy, so that the measured commits include the
// checkpoints that fall due among them (their cost amortised, as in a long
// run). One writer; the store is plain moto (bench/run starts it). Prints
// one JSON line:
//   ms_per_batch     mean time of one commit call, checkpoints included
//   p50_ms, p90_ms, max_ms
//   checkpoints      written during the measured commits
//   rss_mib          the process's resident memory after the measured commits
//   peak_rss_mib     its high-water mark over the whole run (fill included)
//   set_mib          what the in-memory entry set holds
// A program, not a test.
//
//   bench_ledger ENDPOINT ENTRIES BATCHES
#include <floe/ledger/ledger.hpp>
#include <floe/s3/client.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace {

namespace asio = boost::asio;
using steady = std::chrono::steady_clock;

// VmRSS / VmHWM of this process, in MiB.
double status_mib(char const* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(field, 0) == 0) return std::strtod(line.c_str() + std::char_traits<char>::length(field), nullptr) / 1024.0;
  return 0;
}

// A realistic object: a partitioned key and an MD5-like ETag.
floe::ledger::entry object(std::uint64_t i) {
  char key[96], etag[40];
  std::snprintf(key, sizeof key, "raw/2025/01/%02llu/part-%08llu-c000.snappy.parquet",
                static_cast<unsigned long long>(i % 28 + 1), static_cast<unsigned long long>(i));
  std::uint64_t h = i * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
  std::uint64_t g = (h ^ (h >> 29)) * 0xbf58476d1ce4e5b9ull;
  std::snprintf(etag, sizeof etag, "%016llx%016llx", static_cast<unsigned long long>(h),
                static_cast<unsigned long long>(g));
  return floe::ledger::entry{"bench", key, etag, "", 1024 + i % 4096};
}

struct figures {
  std::vector<double> ms;
  unsigned checkpoints = 0;
  double fill_s = 0;
  double set_mib = 0;
  std::string failure;
};

asio::awaitable<void> run(floe::s3::client& c, std::uint64_t entries, unsigned batches, figures& out) {
  std::string const bucket = "bench";
  auto made = co_await c.async_create_bucket(bucket, asio::use_awaitable);
  (void)made;  // it may exist from an earlier size: each size has its own prefix
  std::string const prefix = "ledger-" + std::to_string(entries) + "-" + std::to_string(::getpid());
  auto opened = floe::ledger::ledger::open(c, bucket, prefix);
  if (!opened) {
    out.failure = opened.error().what();
    co_return;
  }
  auto& l = **opened;
  auto init = co_await l.async_init(asio::use_awaitable);
  if (!init) {
    out.failure = init.error().what();
    co_return;
  }
  auto const fill_start = steady::now();
  std::uint64_t next = 0;
  while (next < entries) {
    std::vector<floe::ledger::entry> batch;
    for (std::uint64_t k = 0; k < 1000 && next < entries; ++k) batch.push_back(object(next++));
    auto r = co_await l.async_commit(std::move(batch), asio::use_awaitable);
    if (!r) {
      out.failure = "fill: " + r.error().what();
      co_return;
    }
  }
  out.fill_s = std::chrono::duration<double>(steady::now() - fill_start).count();
  for (unsigned b = 0; b < batches; ++b) {
    std::vector<floe::ledger::entry> batch;
    for (int k = 0; k < 10; ++k) batch.push_back(object(next++));
    auto const t0 = steady::now();
    auto r = co_await l.async_commit(std::move(batch), asio::use_awaitable);
    out.ms.push_back(std::chrono::duration<double, std::milli>(steady::now() - t0).count());
    if (!r || r->committed.size() != 10) {
      out.failure = r ? "a batch was not committed whole" : r.error().what();
      co_return;
    }
    out.checkpoints += r->checkpoint_written ? 1 : 0;
    if (!r->checkpoint_error.empty()) {
      out.failure = r->checkpoint_error;
      co_return;
    }
  }
  out.set_mib = static_cast<double>(l.entries().memory_bytes()) / (1024.0 * 1024.0);
  if (l.size() != entries + 10ull * batches) out.failure = "the ledger holds " + std::to_string(l.size()) + " entries";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: bench_ledger ENDPOINT ENTRIES BATCHES\n");
    return 2;
  }
  std::uint64_t const entries = std::strtoull(argv[2], nullptr, 10);
  unsigned const batches = static_cast<unsigned>(std::strtoul(argv[3], nullptr, 10));
  asio::io_context io;
  floe::s3::client_config cfg;
  cfg.addressing.endpoint_url = argv[1];
  cfg.addressing.region = "us-east-1";
  auto c = floe::s3::client::create(io.get_executor(), cfg);
  if (!c) {
    std::fprintf(stderr, "bench_ledger: %s\n", c.error().what().c_str());
    return 1;
  }
  figures f;
  asio::co_spawn(
      io, [&]() -> asio::awaitable<void> { co_await run(**c, entries, batches, f); }, asio::detached);
  io.run();
  if (!f.failure.empty() || f.ms.empty()) {
    std::fprintf(stderr, "bench_ledger: %s\n", f.failure.empty() ? "nothing measured" : f.failure.c_str());
    return 1;
  }
  double const rss = status_mib("VmRSS:"), peak = status_mib("VmHWM:");
  double sum = 0;
  for (double m : f.ms) sum += m;
  std::vector<double> sorted = f.ms;
  std::sort(sorted.begin(), sorted.end());
  auto pct = [&](double p) { return sorted[std::min(sorted.size() - 1, static_cast<std::size_t>(p * static_cast<double>(sorted.size())))]; };
  std::printf("{\"entries\": %llu, \"batches\": %zu, \"ms_per_batch\": %.3f, \"p50_ms\": %.3f, \"p90_ms\": %.3f, "
              "\"max_ms\": %.3f, \"checkpoints\": %u, \"fill_s\": %.2f, \"rss_mib\": %.1f, \"peak_rss_mib\": %.1f, "
              "\"set_mib\": %.1f}\n",
              static_cast<unsigned long long>(entries), f.ms.size(), sum / static_cast<double>(f.ms.size()), pct(0.5),
              pct(0.9), sorted.back(), f.checkpoints, f.fill_s, rss, peak, f.set_mib);
  return 0;
}
