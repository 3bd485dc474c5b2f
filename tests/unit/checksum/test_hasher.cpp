// The type-erased incremental hasher: AWS SDK test values of "hello world",
// FIPS 180 answers for SHA-1/SHA-256, value() midway, reset(), and the same
// results with the portable CRC forced.
#include "reference.hpp"

#include <floe/checksum/crc.hpp>
#include <floe/checksum/hasher.hpp>

#include <doctest/doctest.h>

#include <random>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace checksum_hasher_test {

namespace cs = floe::checksum;

namespace {
// The base64 values the AWS SDKs' checksum tests expect for the body
// "hello world" (botocore's test_httpchecksum.py has the CRC32, CRC32C,
// SHA1 and SHA256 ones); the CRC64NVME one is the bitwise reference's
// (reference.hpp), cross-checked by the check value below.
struct hello_world_row {
  cs::algorithm alg;
  char const* base64;
};
hello_world_row const hello_world[] = {
    {cs::algorithm::crc32, "DUoRhQ=="},
    {cs::algorithm::crc32c, "yZRlqg=="},
    {cs::algorithm::crc64nvme, "jSnVw/bqjr4="},
    {cs::algorithm::sha1, "Kq5sNclPz7QV2+lfQIuc6R7oRu0="},
    {cs::algorithm::sha256, "uU0nuZNNPgilLlLX2n2r+sSE7+N6U4DukIj3rOLvzek="},
};
}  // namespace

TEST_CASE("\"hello world\" as the AWS SDKs send it, by every implementation of the CRCs") {
  CHECK(cs::digest::of_crc(cs::algorithm::crc64nvme, floe_test::ref_crc64nvme("hello world")).base64() ==
        "jSnVw/bqjr4=");
  cs::implementation const before = cs::active_implementation();
  for (auto impl : floe_test::runnable_implementations()) {
    CAPTURE(cs::to_string(impl));
    REQUIRE(cs::use_implementation(impl));
    for (auto const& row : hello_world) {
      CAPTURE(cs::s3_name(row.alg));
      CHECK(cs::hasher::of(row.alg, "hello world").base64() == row.base64);
    }
  }
  REQUIRE(cs::use_implementation(before));
}

TEST_CASE("FIPS 180 answers: SHA-1 and SHA-256 of \"abc\" and of nothing") {
  auto hex = [](cs::digest const& d) {
    std::string s;
    for (unsigned char b : d.bytes()) {
      constexpr char digits[] = "0123456789abcdef";
      s += digits[b >> 4];
      s += digits[b & 15];
    }
    return s;
  };
  CHECK(hex(cs::hasher::of(cs::algorithm::sha1, "abc")) == "a9993e364706816aba3e25717850c26c9cd0d89d");
  CHECK(hex(cs::hasher::of(cs::algorithm::sha256, "abc")) ==
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(hex(cs::hasher::of(cs::algorithm::sha1, "")) == "da39a3ee5e6b4b0d3255bfef95601890afd80709");
  CHECK(cs::hasher::of(cs::algorithm::sha256, "").base64() == "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=");
  CHECK(cs::hasher::of(cs::algorithm::crc32, "").base64() == "AAAAAA==");
  CHECK(cs::hasher::of(cs::algorithm::crc64nvme, "").base64() == "AAAAAAAAAAA=");
}

TEST_CASE("random splits: incremental == one-shot; value() midway does not end the hasher") {
  std::string const data = floe_test::random_bytes(50000, 23);
  std::mt19937 gen(29);
  for (cs::algorithm a : cs::all_algorithms) {
    CAPTURE(cs::s3_name(a));
    cs::digest const whole = cs::hasher::of(a, data);
    for (int round = 0; round < 20; ++round) {
      cs::hasher h(a);
      std::size_t at = 0;
      while (at < data.size()) {
        std::size_t const step = std::min<std::size_t>(data.size() - at, gen() % 5000);
        h.update(std::string_view(data).substr(at, step));
        at += step;
        if (gen() % 4 == 0) CHECK(h.value() == cs::hasher::of(a, std::string_view(data).substr(0, at)));
      }
      CHECK(h.size() == data.size());
      CHECK(h.value() == whole);
    }
  }
}

TEST_CASE("reset() starts over with the same algorithm") {
  for (cs::algorithm a : cs::all_algorithms) {
    CAPTURE(cs::s3_name(a));
    cs::hasher h(a);
    h.update("something else first");
    h.reset();
    CHECK(h.size() == 0);
    CHECK(h.alg() == a);
    h.update("hello world");
    CHECK(h.value() == cs::hasher::of(a, "hello world"));
    CHECK(h.value().alg == a);
  }
}

}  // namespace checksum_hasher_test
