// The tail benchmark's floe side (bench/scenarios/tail.py): N sequential
// GETs of one small object with the library's default settings (hedged
// reads on), each timed; prints one JSON line with p50, p99, p99.9 (ms),
// p99 after the first 100 GETs, the failures, CPU per GET and what the
// hedges did. With ADDRESSES ("127.0.0.1,127.0.0.2,..."), the endpoint's
// host name resolves to those (http::client_config::resolve_overrides): one
// store behind several front-ends. Loopback only.
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

asio::awaitable<void> gets(floe::s3::client& c, std::string bucket, std::string key, std::uint64_t n,
                           std::vector<double>& ms, unsigned& failures) {
  for (std::uint64_t i = 0; i < n; ++i) {
    auto const t0 = std::chrono::steady_clock::now();
    auto r = co_await c.async_get_object(bucket, key, asio::use_awaitable);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    if (ms.back() > 250.0) {  // which GETs were slow, and what the hedges had done by then
      auto const& h = c.hedges();
      std::fprintf(stderr, "bench_tail: GET %llu took %.1f ms (hedges sent %llu, won %llu, late cuts %llu)\n",
                   static_cast<unsigned long long>(i), ms.back(), static_cast<unsigned long long>(h.sent),
                   static_cast<unsigned long long>(h.won), static_cast<unsigned long long>(h.late));
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
  asio::co_spawn(io, gets(c, argv[2], argv[3], n, ms, failures), asio::detached);
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
