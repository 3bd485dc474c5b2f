// The size band of a hedgeable read (retry/size_band.hpp) with a fake
// clock: bytes to a band, a Range header's length, and the band of a
// whole-object read learned from recent replies' sizes.
#include <floe/retry/hedge.hpp>
#include <floe/retry/size_band.hpp>

#include <doctest/doctest.h>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace retry_size_band_test {

using namespace floe::retry;
using namespace std::chrono_literals;
using steady = std::chrono::steady_clock;

namespace {
steady::time_point const t0 = steady::time_point(5000s);
}  // namespace

TEST_CASE("size band: 0 below 64 KiB, then one per factor 16, at most 8") {
  CHECK(size_band(0) == 0);
  CHECK(size_band(1024) == 0);
  CHECK(size_band((64 << 10) - 1) == 0);
  CHECK(size_band(64 << 10) == 1);
  CHECK(size_band((1 << 20) - 1) == 1);
  CHECK(size_band(1 << 20) == 2);
  CHECK(size_band(16 << 20) == 3);
  CHECK(size_band(std::uint64_t{1} << 40) == 7);
  CHECK(size_band(std::uint64_t{1} << 60) == 8);
  CHECK(size_band(UINT64_MAX) == 8);
}

TEST_CASE("range length: what bytes=a-b and bytes=-n ask for; nothing for what it cannot tell") {
  CHECK(range_length("bytes=0-1023") == 1024u);
  CHECK(range_length("bytes=100-100") == 1u);
  CHECK(range_length("bytes=-500") == 500u);
  CHECK(range_length("bytes=1048576-2097151") == 1048576u);
  CHECK_FALSE(range_length(""));
  CHECK_FALSE(range_length("bytes=100-"));         // open: to the end, size unknown
  CHECK_FALSE(range_length("bytes=0-9,20-29"));    // several ranges
  CHECK_FALSE(range_length("bytes=9-0"));          // backwards
  CHECK_FALSE(range_length("bytes=-0"));
  CHECK_FALSE(range_length("items=0-9"));
  CHECK_FALSE(range_length("bytes=a-9"));
  CHECK_FALSE(range_length("bytes=0-18446744073709551615"));  // one past the last byte overflows
}

TEST_CASE("size memory: a ranged read's band is its length's, a whole object's the median of recent replies") {
  size_memory m(16, 120s);
  // Nothing seen: band 0; a known length wins over anything learned.
  CHECK(m.band("h", "GetObject", std::nullopt, t0) == 0);
  CHECK(m.band("h", "GetObject", std::uint64_t{8} << 20, t0) == 2);
  // Mostly 4 MiB objects with a few small ones: the median is 4 MiB's band.
  for (int i = 0; i < 10; ++i) m.add("h", "GetObject", 4 << 20, t0);
  for (int i = 0; i < 5; ++i) m.add("h", "GetObject", 100, t0);
  CHECK(m.band("h", "GetObject", std::nullopt, t0) == 2);
  CHECK(m.band("h", "GetObject", 1024, t0) == 0);
  // Learned per host and operation.
  CHECK(m.band("other", "GetObject", std::nullopt, t0) == 0);
  CHECK(m.band("h", "GetObjectAttributes", std::nullopt, t0) == 0);
  // The window keeps the last 16: 16 small replies push the big ones out.
  for (int i = 0; i < 16; ++i) m.add("h", "GetObject", 2048, t0);
  CHECK(m.band("h", "GetObject", std::nullopt, t0) == 0);
}

TEST_CASE("size memory: sizes older than max_age are forgotten") {
  size_memory m(16, 120s);
  for (int i = 0; i < 4; ++i) m.add("h", "GetObject", 32 << 20, t0);
  CHECK(m.band("h", "GetObject", std::nullopt, t0 + 100s) == 3);
  CHECK(m.band("h", "GetObject", std::nullopt, t0 + 121s) == 0);
}

TEST_CASE("the hedge delay of a big object is not the small ones': keyed by the band the memory gives") {
  hedge_params p;
  ttfb_learner l(p);
  size_memory m(16, p.max_age);
  // 1 KiB replies in 10 ms, 16 MiB replies in 300 ms.
  for (int i = 0; i < 20; ++i) {
    l.add("h", "GetObject", size_band(1024), 10ms, t0);
    l.add("h", "GetObject", size_band(16 << 20), 300ms, t0);
  }
  CHECK(l.delay("h", "GetObject", m.band("h", "GetObject", 1024, t0), t0) == 10ms);
  CHECK(l.delay("h", "GetObject", m.band("h", "GetObject", std::uint64_t{16} << 20, t0), t0) == 300ms);
  // A whole-object read after big replies waits as long as big ones take.
  for (int i = 0; i < 8; ++i) m.add("h", "GetObject", 16 << 20, t0);
  CHECK(l.delay("h", "GetObject", m.band("h", "GetObject", std::nullopt, t0), t0) == 300ms);
}

}  // namespace retry_size_band_test
