// GB/s of each checksum S3 carries, per implementation, beside zlib's
// crc32(), over a 4 KiB buffer (a call's fixed costs show), one that fits the
// L2 cache (256 KiB) and one that does not (64 MiB, read from memory every
// pass). One thread; bytes_per_second is
// the figure (Google Benchmark prints it in GiB/s as "G/s"; the README table
// converts to GB/s).
//
//   ninja -C build bench/checksum/bench_checksum && build/bench/checksum/bench_checksum

#include <floe/checksum/crc.hpp>
#include <floe/checksum/hasher.hpp>

#include <benchmark/benchmark.h>
#include <zlib.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

namespace cs = floe::checksum;

// 64 MiB of random bytes; each benchmark reads a prefix of it.
std::vector<unsigned char> const& buffer() {
  static std::vector<unsigned char> const b = [] {
    std::vector<unsigned char> v(std::size_t{64} << 20);
    std::mt19937_64 gen(1);
    for (auto& c : v) c = static_cast<unsigned char>(gen());
    return v;
  }();
  return b;
}

template <class F>
void run(benchmark::State& state, F f) {
  auto const size = static_cast<std::size_t>(state.range(0));
  auto const& b = buffer();
  for (auto _ : state) benchmark::DoNotOptimize(f(b.data(), size));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(size));
}

void register_all() {
  std::vector<std::int64_t> const sizes = {4 << 10, 256 << 10, 64 << 20};
  auto add = [&](std::string const& name, auto f) {
    auto* b = benchmark::RegisterBenchmark(name.c_str(), [f](benchmark::State& s) { run(s, f); });
    for (auto size : sizes) b->Arg(size);
    b->Unit(benchmark::kMicrosecond);
  };
  add("zlib_crc32", [](unsigned char const* p, std::size_t n) {
    return ::crc32_z(::crc32_z(0, nullptr, 0), p, n);
  });
  for (auto impl : {cs::implementation::avx512, cs::implementation::pclmul, cs::implementation::portable}) {
    if (!cs::supported(impl)) continue;
    std::string tag = "/";  // built in steps: GCC 12 -O3 warns falsely on "/" + std::string
    tag += cs::to_string(impl);
    add("crc32" + tag, [impl](unsigned char const* p, std::size_t n) { return cs::crc32(0, p, n, impl); });
    add("crc32c" + tag, [impl](unsigned char const* p, std::size_t n) { return cs::crc32c(0, p, n, impl); });
    add("crc64nvme" + tag, [impl](unsigned char const* p, std::size_t n) { return cs::crc64nvme(0, p, n, impl); });
  }
  for (auto alg : {cs::algorithm::sha1, cs::algorithm::sha256}) {
    add(std::string(cs::s3_name(alg)), [alg](unsigned char const* p, std::size_t n) {
      cs::hasher h(alg);
      h.update(p, n);
      return h.value().storage[0];
    });
  }
}

}  // namespace

int main(int argc, char** argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
