// ns and heap allocations per SigV4 signature for an S3 GET, with a warm
// signing-key cache and with a cold one (cleared before every signature, so
// each pays the four HMACs of key derivation). Allocations are counted by a
// replaced global operator new and reported as the "allocs/sig" counter.
//
//   ninja -C build bench/sigv4/bench_sigv4 && build/bench/sigv4/bench_sigv4

#include <floe/sigv4/signer.hpp>
#include <floe/sigv4/uri_encode.hpp>

#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdlib>
#include <new>

namespace {
std::atomic<long> allocations{0};
void* counted_alloc(std::size_t n) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
}  // namespace

void* operator new(std::size_t n) { return counted_alloc(n); }
void* operator new[](std::size_t n) { return counted_alloc(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace {
using namespace floe::sigv4;
using namespace std::chrono;

struct s3_get {
  std::string path = "/" + uri_encode("logs/2024/05/17/part-0001.parquet", false);
  std::array<header_view, 2> headers{{{"Host", "my-bucket.s3.eu-west-1.amazonaws.com"}, {"Range", "bytes=0-1048575"}}};
  credentials_view creds{"ASIAEXAMPLEEXAMPLE12", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                         "IQoJb3JpZ2luX2VjEXAMPLETOKENEXAMPLETOKENEXAMPLETOKEN"};
  request_view req() const { return {"GET", path, {}, headers, empty_payload_sha256}; }
};
auto const t0 = sys_days{year{2024} / 5 / 17} + hours{8};

void report(benchmark::State& state, long allocs) {
  state.counters["allocs/sig"] =
      benchmark::Counter(static_cast<double>(allocs), benchmark::Counter::kAvgIterations);
}

void sign_headers_warm(benchmark::State& state) {
  s3_get g;
  signer s;
  header_signature sig;
  auto const p = signing_params::s3("eu-west-1");
  (void)s.sign_headers(g.req(), g.creds, p, t0, sig);
  long const before = allocations.load();
  for (auto _ : state) {
    auto r = s.sign_headers(g.req(), g.creds, p, t0, sig);
    benchmark::DoNotOptimize(r);
    benchmark::DoNotOptimize(sig.signature.data());
  }
  report(state, allocations.load() - before);
}
BENCHMARK(sign_headers_warm);

void sign_headers_cold(benchmark::State& state) {
  s3_get g;
  signer s;
  header_signature sig;
  auto const p = signing_params::s3("eu-west-1");
  (void)s.sign_headers(g.req(), g.creds, p, t0, sig);
  long const before = allocations.load();
  for (auto _ : state) {
    s.key_cache().clear();
    auto r = s.sign_headers(g.req(), g.creds, p, t0, sig);
    benchmark::DoNotOptimize(r);
    benchmark::DoNotOptimize(sig.signature.data());
  }
  report(state, allocations.load() - before);
}
BENCHMARK(sign_headers_cold);

void presign_warm(benchmark::State& state) {
  s3_get g;
  signer s;
  presigned_query q;
  auto const p = signing_params::s3("eu-west-1");
  (void)s.presign(g.req(), g.creds, p, t0, seconds(900), q);
  long const before = allocations.load();
  for (auto _ : state) {
    auto r = s.presign(g.req(), g.creds, p, t0, seconds(900), q);
    benchmark::DoNotOptimize(r);
    benchmark::DoNotOptimize(q.query.data());
  }
  report(state, allocations.load() - before);
}
BENCHMARK(presign_warm);

// A fresh signer and output per signature: what a caller that keeps nothing pays.
void sign_headers_fresh_objects(benchmark::State& state) {
  s3_get g;
  auto const p = signing_params::s3("eu-west-1");
  long const before = allocations.load();
  for (auto _ : state) {
    signer s;
    header_signature sig;
    auto r = s.sign_headers(g.req(), g.creds, p, t0, sig);
    benchmark::DoNotOptimize(r);
    benchmark::DoNotOptimize(sig.signature.data());
  }
  report(state, allocations.load() - before);
}
BENCHMARK(sign_headers_fresh_objects);
}  // namespace

BENCHMARK_MAIN();
