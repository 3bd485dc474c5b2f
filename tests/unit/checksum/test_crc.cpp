// CRC32, CRC32C and CRC64NVME: check values, every implementation against a
// bit-at-a-time reference at every length 0..1024 and unaligned starts,
// incremental == one-shot, and combine().
#include "reference.hpp"

#include <floe/checksum/crc.hpp>
#include <floe/checksum/detail/polynomial.hpp>

#include <doctest/doctest.h>

#include <random>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace checksum_crc_test {

namespace cs = floe::checksum;
using floe_test::random_bytes;
using floe_test::runnable_implementations;

namespace {

// One CRC, with its reference, for the loops below.
struct crc_under_test {
  std::string_view name;
  std::uint64_t (*with)(std::uint64_t crc, std::string_view s, cs::implementation i);
  std::uint64_t (*reference)(std::string_view s);
  std::uint64_t (*combine)(std::uint64_t a, std::uint64_t b, std::uint64_t size_b);
};

crc_under_test const crcs[] = {
    {"crc32", [](std::uint64_t c, std::string_view s, cs::implementation i) -> std::uint64_t {
       return cs::crc32(static_cast<std::uint32_t>(c), s.data(), s.size(), i);
     },
     [](std::string_view s) -> std::uint64_t { return floe_test::ref_crc32(s); },
     [](std::uint64_t a, std::uint64_t b, std::uint64_t n) -> std::uint64_t {
       return cs::crc32_combine(static_cast<std::uint32_t>(a), static_cast<std::uint32_t>(b), n);
     }},
    {"crc32c", [](std::uint64_t c, std::string_view s, cs::implementation i) -> std::uint64_t {
       return cs::crc32c(static_cast<std::uint32_t>(c), s.data(), s.size(), i);
     },
     [](std::string_view s) -> std::uint64_t { return floe_test::ref_crc32c(s); },
     [](std::uint64_t a, std::uint64_t b, std::uint64_t n) -> std::uint64_t {
       return cs::crc32c_combine(static_cast<std::uint32_t>(a), static_cast<std::uint32_t>(b), n);
     }},
    {"crc64nvme", [](std::uint64_t c, std::string_view s, cs::implementation i) -> std::uint64_t {
       return cs::crc64nvme(c, s.data(), s.size(), i);
     },
     [](std::string_view s) -> std::uint64_t { return floe_test::ref_crc64nvme(s); },
     [](std::uint64_t a, std::uint64_t b, std::uint64_t n) -> std::uint64_t {
       return cs::crc64nvme_combine(a, b, n);
     }},
};

}  // namespace

TEST_CASE("the published check values of \"123456789\", by every implementation") {
  for (auto impl : runnable_implementations()) {
    CAPTURE(cs::to_string(impl));
    CHECK(cs::crc32(0, "123456789", 9, impl) == 0xCBF43926u);
    CHECK(cs::crc32c(0, "123456789", 9, impl) == 0xE3069283u);
    CHECK(cs::crc64nvme(0, "123456789", 9, impl) == 0xAE8B14860A799888u);
  }
  // The reference itself, so that a wrong reference cannot hide a wrong CRC.
  CHECK(floe_test::ref_crc32("123456789") == 0xCBF43926u);
  CHECK(floe_test::ref_crc32c("123456789") == 0xE3069283u);
  CHECK(floe_test::ref_crc64nvme("123456789") == 0xAE8B14860A799888u);
  // The dispatched entry points and the string_view forms.
  CHECK(cs::crc32("123456789") == 0xCBF43926u);
  CHECK(cs::crc32c("123456789") == 0xE3069283u);
  CHECK(cs::crc64nvme("123456789") == 0xAE8B14860A799888u);
}

TEST_CASE("other published values: zlib's crc32 of a sentence, CRC32C of 32 zero bytes (RFC 3720)") {
  CHECK(cs::crc32("The quick brown fox jumps over the lazy dog") == 0x414FA339u);
  CHECK(cs::crc32c(std::string(32, '\0')) == 0x8A9136AAu);
  CHECK(cs::crc32c(std::string(32, '\xff')) == 0x62A8AB43u);
}

TEST_CASE("empty input: the CRC is 0, and updating with nothing changes nothing") {
  for (auto impl : runnable_implementations()) {
    CAPTURE(cs::to_string(impl));
    for (auto const& c : crcs) {
      CAPTURE(c.name);
      CHECK(c.with(0, {}, impl) == 0);
      CHECK(c.with(0x12345678u, {}, impl) == 0x12345678u);
    }
  }
}

TEST_CASE("every length 0..1024 at 16 starting offsets: each implementation == the bitwise reference") {
  std::string const data = random_bytes(1024 + 16, 31);
  auto const impls = runnable_implementations();
  MESSAGE("implementations on this CPU: " << impls.size() << " (best: " << cs::to_string(cs::best_implementation())
                                          << ")");
  for (auto const& c : crcs) {
    CAPTURE(c.name);
    for (std::size_t offset = 0; offset < 16; ++offset) {
      for (std::size_t n = 0; n <= 1024; ++n) {
        std::string_view const s(data.data() + offset, n);
        std::uint64_t const want = c.reference(s);
        for (auto impl : impls) {
          if (c.with(0, s, impl) != want) {
            FAIL_CHECK(c.name << " by " << cs::to_string(impl) << " of " << n << " bytes at offset " << offset);
            return;
          }
        }
      }
    }
  }
}

TEST_CASE("large inputs (many folding rounds, every remainder): SIMD == portable") {
  std::string const data = random_bytes((1u << 20) + 300, 7);
  for (auto const& c : crcs) {
    CAPTURE(c.name);
    for (std::size_t n : {4096u, 4096u + 1, 4096u + 255, 65536u + 13, 100000u, 1u << 20, (1u << 20) + 299}) {
      CAPTURE(n);
      std::string_view const s(data.data() + 1, n);
      std::uint64_t const want = c.with(0, s, cs::implementation::portable);
      for (auto impl : runnable_implementations()) {
        CAPTURE(cs::to_string(impl));
        CHECK(c.with(0, s, impl) == want);
      }
    }
  }
}

TEST_CASE("incremental updates over random splits == one call") {
  std::string const data = random_bytes(20000, 5);
  std::mt19937 gen(11);
  for (auto const& c : crcs) {
    CAPTURE(c.name);
    for (auto impl : runnable_implementations()) {
      CAPTURE(cs::to_string(impl));
      std::uint64_t const whole = c.with(0, data, impl);
      for (int round = 0; round < 50; ++round) {
        std::uint64_t crc = 0;
        std::size_t at = 0;
        while (at < data.size()) {
          std::size_t const step = std::min<std::size_t>(data.size() - at, gen() % (round < 25 ? 40 : 3000));
          crc = c.with(crc, std::string_view(data).substr(at, step), impl);
          at += step;
        }
        CHECK(crc == whole);
      }
    }
  }
}

TEST_CASE("one CRC carried on across implementations: each continues from another's value") {
  std::string const data = random_bytes(30000, 13);
  auto const impls = runnable_implementations();
  std::mt19937 gen(19);
  for (auto const& c : crcs) {
    CAPTURE(c.name);
    std::uint64_t const whole = c.reference(data);
    for (int round = 0; round < 20; ++round) {
      std::uint64_t crc = 0;
      std::size_t at = 0;
      while (at < data.size()) {
        std::size_t const step = std::min<std::size_t>(data.size() - at, gen() % 1500);
        crc = c.with(crc, std::string_view(data).substr(at, step), impls[gen() % impls.size()]);
        at += step;
      }
      CHECK(crc == whole);
    }
  }
}

TEST_CASE("combine(crc(A), crc(B), len B) == crc(A || B), empty parts included") {
  std::string const data = random_bytes(5000, 3);
  std::mt19937 gen(17);
  for (auto const& c : crcs) {
    CAPTURE(c.name);
    std::uint64_t const whole = c.reference(data);
    std::vector<std::size_t> splits = {0, 1, 7, 8, 9, 255, 256, 4999, 5000};
    for (int i = 0; i < 100; ++i) splits.push_back(gen() % 5001);
    for (std::size_t cut : splits) {
      CAPTURE(cut);
      std::string_view const a = std::string_view(data).substr(0, cut);
      std::string_view const b = std::string_view(data).substr(cut);
      CHECK(c.combine(c.reference(a), c.reference(b), b.size()) == whole);
    }
    // Many parts, folded left, some of them empty.
    std::uint64_t acc = 0;
    std::size_t at = 0;
    while (at < data.size()) {
      std::size_t const step = std::min<std::size_t>(data.size() - at, gen() % 4 == 0 ? 0 : gen() % 700);
      std::string_view const part = std::string_view(data).substr(at, step);
      acc = c.combine(acc, c.reference(part), part.size());
      at += step;
    }
    CHECK(acc == whole);
  }
}

TEST_CASE("combine over a long part (8 MiB of zeros): the x^(8n) mod P by squaring is right") {
  std::string const zeros(8u << 20, '\0');
  std::string const head = random_bytes(100, 9);
  for (auto const& c : crcs) {
    CAPTURE(c.name);
    std::uint64_t const direct = c.with(c.with(0, head, cs::best_implementation()), zeros, cs::best_implementation());
    std::uint64_t const zcrc = c.with(0, zeros, cs::implementation::portable);
    CHECK(c.combine(c.with(0, head, cs::implementation::portable), zcrc, zeros.size()) == direct);
  }
}

TEST_CASE("the computed tables hold the published entries (bytes 1 and 128 of the first table)") {
  namespace d = cs::detail;
  // Byte 128 alone is the reflected polynomial; byte 1 is the classic
  // tables' second entry (zlib's 0x77073096).
  static_assert(d::crc_tables<d::crc32_spec, std::uint32_t>[0][128] == 0xEDB88320u);
  static_assert(d::crc_tables<d::crc32c_spec, std::uint32_t>[0][128] == 0x82F63B78u);
  static_assert(d::crc_tables<d::crc64nvme_spec, std::uint64_t>[0][128] == 0x9A6C9329AC4BC9B5u);
  CHECK(d::crc_tables<d::crc32_spec, std::uint32_t>[0][1] == 0x77073096u);
  CHECK(d::crc_tables<d::crc32c_spec, std::uint32_t>[0][1] == 0xF26B8303u);
}

TEST_CASE("x^(8n) mod P by squaring equals n*8 multiplications by x") {
  namespace d = cs::detail;
  for (unsigned n : {0u, 1u, 2u, 3u, 100u, 257u, 1000u}) {
    CAPTURE(n);
    CHECK(d::x_pow_8n_mod<d::crc32_spec>(n) == d::x_pow_mod_slow(d::crc32_spec, 8 * n));
    CHECK(d::x_pow_8n_mod<d::crc64nvme_spec>(n) == d::x_pow_mod_slow(d::crc64nvme_spec, 8 * n));
  }
}

TEST_CASE("x^(8n) mod P for sizes up to 2^64-1 bytes: x^(8a) * x^(8b) == x^(8(a+b))") {
  namespace d = cs::detail;
  std::uint64_t const big[][2] = {{1u << 20, 3}, {1ull << 40, (1ull << 40) + 5}, {(1ull << 62) + 1, (1ull << 62) - 1},
                                  {~std::uint64_t{0} - 7, 7}, {0x123456789abcdefull, 0xfedcba987654321ull}};
  for (auto const& ab : big) {
    std::uint64_t const a = ab[0];
    std::uint64_t const b = ab[1];
    CAPTURE(a);
    CAPTURE(b);
    CHECK(d::mul_mod(d::crc32c_spec, d::x_pow_8n_mod<d::crc32c_spec>(a), d::x_pow_8n_mod<d::crc32c_spec>(b)) ==
          d::x_pow_8n_mod<d::crc32c_spec>(a + b));
    CHECK(d::mul_mod(d::crc64nvme_spec, d::x_pow_8n_mod<d::crc64nvme_spec>(a),
                     d::x_pow_8n_mod<d::crc64nvme_spec>(b)) == d::x_pow_8n_mod<d::crc64nvme_spec>(a + b));
    // And combine() agrees: shifting by a then by b is shifting by a + b.
    std::uint64_t const r = 0x0123456789abcdefull;
    CHECK(cs::crc64nvme_combine(cs::crc64nvme_combine(r, 0, a), 0, b) == cs::crc64nvme_combine(r, 0, a + b));
  }
}

TEST_CASE("use_implementation forces one for the dispatched calls, and refuses what the CPU lacks") {
  cs::implementation const before = cs::active_implementation();
  CHECK(before == cs::best_implementation());
  REQUIRE(cs::use_implementation(cs::implementation::portable));
  CHECK(cs::active_implementation() == cs::implementation::portable);
  std::string const data = random_bytes(3000, 1);
  CHECK(cs::crc64nvme(0, data.data(), data.size()) == floe_test::ref_crc64nvme(data));
  for (auto impl : {cs::implementation::pclmul, cs::implementation::avx512}) {
    bool const ok = cs::use_implementation(impl);
    CHECK(ok == cs::supported(impl));
    if (ok) CHECK(cs::active_implementation() == impl);
  }
  REQUIRE(cs::use_implementation(before));
  CHECK(cs::to_string(cs::implementation::avx512) == "avx512");
}

}  // namespace checksum_crc_test
