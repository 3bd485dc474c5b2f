// The tail benchmark's floe side (bench/scenarios/tail.py): N sequential
// GETs of one small object with the library's default settings (hedged
// reads on), each timed; prints one JSON line with p50, p99, p99.9 (ms),
// p99 after the first 100 GETs, the failures, CPU per GET and what the
// hedges did. With ADDRESSES ("127.0.0.1,127.0.0.2,..."), the endpoint's
// host name resolves to those (http::client_config::resolve_overrides): one
// store behind several front-ends. FLOE_TAIL_HEDGE=off turns hedged reads
// off (s3::client_config::hedge.enabled), the one change from the
// defaults: the row beside which hedging's own cost is measured. Loopback
// only. FLOE_TAIL_SLOW_MS (250 by default) names slower GETs on stderr,
// each with its exchanges.
#include <floe/s3/client.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace asio = boost::asio;

namespace {

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// The nearest-rank percentile of sorted `v`, in ms.
double pct(std::vector<double> const& v, double q) {
  if (v.empty()) return 0;
  auto rank = static_cast<std::size_t>(q * static_cast<double>(v.size()) + 0.999999);
  rank = std::clamp<std::size_t>(rank, 1, v.size());
  return v[rank - 1];
}

// Each exchange of the current GET (the http::exchange_observer's view):
// printed beside a slow GET's line, so what its attempts did is seen.
std::vector<std::string> exchanges;

void note(floe::http::exchange_view const& v) {
  using ms_d = std::chrono::duration<double, std::milli>;
  char line[256];
  std::snprintf(line, sizeof line, "  attempt %u%s%s %.*s status %u%s%s: %.1f ms, first byte %.1f ms", v.attempt,
                v.hedge ? " hedge" : "", v.hedge_won ? " won" : "", static_cast<int>(v.peer.size()), v.peer.data(),
                v.status, v.ec ? " " : "", v.ec ? v.ec.message().c_str() : "", ms_d(v.elapsed).count(),
                ms_d(v.ttfb).count());
  exchanges.emplace_back(line);
}

asio::awaitable<void> gets(floe::s3::client& c, std::string bucket, std::string key, std::uint64_t n,
                           std::vector<double>& ms, unsigned& failures, double slow_ms) {
  for (std::uint64_t i = 0; i < n; ++i) {
    exchanges.clear();
    auto const t0 = std::chrono::steady_clock::now();
    auto r = co_await c.async_get_object(bucket, key, asio::use_awaitable);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    if (ms.back() > slow_ms) {  // which GETs were slow, and what the hedges had done by then
      auto const& h = c.hedges();
      std::fprintf(stderr, "bench_tail: GET %llu took %.1f ms (hedges sent %llu, won %llu, late cuts %llu)\n",
                   static_cast<unsigned long long>(i), ms.back(), static_cast<unsigned long long>(h.sent),
                   static_cast<unsigned long long>(h.won), static_cast<unsigned long long>(h.late));
      for (auto const& x : exchanges) std::fprintf(stderr, "%s\n", x.c_str());
    }
    if (!r) {
      ++failures;
      std::fprintf(stderr, "bench_tail: %s\n", r.error().what().c_str());
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  ::setenv("AWS_EC2_METADATA_DISABLED", "true", 1);
  if (argc != 5 && argc != 6) {
    std::fprintf(stderr, "usage: %s ENDPOINT BUCKET KEY N [ADDRESSES]\n", argv[0]);
    return 2;
  }
  asio::io_context io(1);
  floe::s3::client_config cfg;  // the library's defaults: hedged reads on
  cfg.addressing.endpoint_url = argv[1];
  cfg.addressing.region = "us-east-1";
  cfg.addressing.style = floe::s3::addressing_style::path;
  cfg.http.proxy.no_proxy = "*";
  cfg.http.observer = note;
  if (char const* h = std::getenv("FLOE_TAIL_HEDGE")) {
    std::string const v = h;
    if (v != "on" && v != "off") {
      std::fprintf(stderr, "bench_tail: FLOE_TAIL_HEDGE must be on or off, not '%s'\n", h);
      return 2;
    }
    cfg.hedge.enabled = v == "on";
  }
  if (argc == 6) {
    auto const url = floe::http::parse_url(argv[1]);
    if (!url) {
      std::fprintf(stderr, "bench_tail: ENDPOINT: %s\n", url.error().what().c_str());
      return 2;
    }
    cfg.http.resolve_overrides = {{url->ep.host, argv[5]}};
  }
  auto made = floe::s3::client::create(io.get_executor(), std::move(cfg));
  if (!made) {
    std::fprintf(stderr, "bench_tail: %s\n", made.error().what().c_str());
    return 2;
  }
  auto& c = **made;
  auto const n = std::strtoull(argv[4], nullptr, 10);
  std::vector<double> ms;
  ms.reserve(n);
  unsigned failures = 0;
  auto const cpu0 = cpu_seconds();
  double slow_ms = 250.0;  // FLOE_TAIL_SLOW_MS: GETs slower than this are named on stderr
  if (char const* s = std::getenv("FLOE_TAIL_SLOW_MS")) slow_ms = std::strtod(s, nullptr);
  asio::co_spawn(io, gets(c, argv[2], argv[3], n, ms, failures, slow_ms), asio::detached);
  io.run();
  auto const cpu = cpu_seconds() - cpu0;
  std::vector<double> after(ms.size() > 100 ? ms.begin() + 100 : ms.end(), ms.end());
  std::sort(after.begin(), after.end());
  std::sort(ms.begin(), ms.end());
  auto const& h = c.hedges();
  std::printf("{\"requests\": %zu, \"failures\": %u, \"p50_ms\": %.2f, \"p99_ms\": %.2f, \"p999_ms\": %.2f, "
              "\"p99_after_100_ms\": %.2f, \"cpu_us_per_get\": %.1f, \"hedges_sent\": %llu, \"hedges_won\": %llu, \"late_cuts\": %llu}\n",
              ms.size(), failures, pct(ms, 0.5), pct(ms, 0.99), pct(ms, 0.999), pct(after, 0.99),
              ms.empty() ? 0.0 : cpu * 1e6 / static_cast<double>(ms.size()), static_cast<unsigned long long>(h.sent),
              static_cast<unsigned long long>(h.won), static_cast<unsigned long long>(h.late));
  return 0;  // failures are a figure of the row, not a broken run
}
