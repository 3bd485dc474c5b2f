// A multipart object's checksum from its parts': the full-object CRC
// combined from part CRCs equals the CRC of the whole; the composite is the
// checksum of the concatenated part digests with "-N".
#include "reference.hpp"

#include <floe/checksum/combine.hpp>

#include <doctest/doctest.h>

#include <random>
#include <vector>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace checksum_combine_test {

namespace cs = floe::checksum;

namespace {
// Cuts `data` into parts at random sizes (some empty when `empties`).
std::vector<std::string_view> cut(std::string_view data, std::mt19937& gen, bool empties) {
  std::vector<std::string_view> parts;
  while (!data.empty()) {
    std::size_t n = std::min<std::size_t>(data.size(), gen() % 3000 + (empties ? 0 : 1));
    if (empties && gen() % 5 == 0) n = 0;
    parts.push_back(data.substr(0, n));
    data.remove_prefix(n);
  }
  return parts;
}
}  // namespace

TEST_CASE("full-object CRC from part CRCs == the CRC of the whole object, empty parts included") {
  std::string const data = floe_test::random_bytes(30000, 41);
  std::mt19937 gen(43);
  for (cs::algorithm a : {cs::algorithm::crc32, cs::algorithm::crc32c, cs::algorithm::crc64nvme}) {
    CAPTURE(cs::s3_name(a));
    cs::digest const whole = cs::hasher::of(a, data);
    for (int round = 0; round < 30; ++round) {
      cs::full_object_crc f(a);
      for (auto part : cut(data, gen, round % 2 == 0)) {
        // Half the parts as S3 returns them (base64), half as digests.
        auto const d = cs::hasher::of(a, part);
        auto r = gen() % 2 ? f.add_part(d, part.size()) : f.add_part(d.base64(), part.size());
        REQUIRE(r.has_value());
      }
      CHECK(f.size() == data.size());
      CHECK(f.value() == whole);
    }
    CHECK(cs::full_object_crc(a).value() == cs::hasher::of(a, ""));
  }
}

TEST_CASE("combine() of two digests, and its errors") {
  auto const a = cs::hasher::of(cs::algorithm::crc64nvme, "hello ");
  auto const b = cs::hasher::of(cs::algorithm::crc64nvme, "world");
  auto ab = cs::combine(a, b, 5);
  REQUIRE(ab.has_value());
  CHECK(*ab == cs::hasher::of(cs::algorithm::crc64nvme, "hello world"));

  auto mixed = cs::combine(a, cs::hasher::of(cs::algorithm::crc32, "world"), 5);
  REQUIRE_FALSE(mixed.has_value());
  CHECK(mixed.error().code == floe::errc::invalid_argument);
  CHECK(mixed.error().diag.message == "checksum combine: a CRC32 value where CRC64NVME was expected");
  auto sha = cs::hasher::of(cs::algorithm::sha256, "x");
  auto not_crc = cs::combine(sha, sha, 1);
  REQUIRE_FALSE(not_crc.has_value());
  CHECK(not_crc.error().diag.message ==
        "checksum combine: a SHA256 value where SHA256 was expected (SHA256 is not a CRC: its values do not combine)");

  cs::full_object_crc f(cs::algorithm::crc32c);
  auto bad = f.add_part("DUoRhQ", 3);
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error().diag.message == "checksum value 'DUoRhQ' is not a CRC32C value (the base64 of 4 bytes)");
  CHECK(f.size() == 0);
}

TEST_CASE("composite: the checksum of the concatenated part digests, then -N") {
  std::string const data = floe_test::random_bytes(20000, 47);
  std::mt19937 gen(53);
  for (cs::algorithm a : {cs::algorithm::crc32, cs::algorithm::crc32c, cs::algorithm::sha1, cs::algorithm::sha256}) {
    CAPTURE(cs::s3_name(a));
    auto const parts = cut(data, gen, false);
    cs::composite c(a);
    std::string concatenated;
    for (auto part : parts) {
      auto const d = cs::hasher::of(a, part);
      concatenated.append(reinterpret_cast<char const*>(d.bytes().data()), d.size());
      REQUIRE(c.add_part(d.base64()).has_value());
    }
    CHECK(c.parts() == parts.size());
    std::string const want = cs::hasher::of(a, concatenated).base64() + "-" + std::to_string(parts.size());
    std::string const value = c.value();
    CHECK(value == want);
    auto split = cs::split_composite(value);  // views into `value`
    REQUIRE(split);
    CHECK(split->parts == parts.size());
    CHECK(split->base64 == cs::hasher::of(a, concatenated).base64());
  }
}

TEST_CASE("composite of one known part: CRC32 of the 4 bytes of CRC32(\"hello world\")") {
  cs::composite c(cs::algorithm::crc32);
  REQUIRE(c.add_part("DUoRhQ==").has_value());
  std::string const be("\x0d\x4a\x11\x85", 4);
  CHECK(c.value() == cs::digest::of_crc(cs::algorithm::crc32, floe_test::ref_crc32(be)).base64() + "-1");
  auto wrong = c.add_part(cs::hasher::of(cs::algorithm::sha1, "x"));
  REQUIRE_FALSE(wrong.has_value());
  CHECK(wrong.error().diag.message == "composite checksum part: a SHA1 value where CRC32 was expected");
  CHECK(c.parts() == 1);
}

TEST_CASE("split_composite finds -N and refuses what has none") {
  auto s = cs::split_composite("yZRlqg==-12");
  REQUIRE(s);
  CHECK(s->base64 == "yZRlqg==");
  CHECK(s->parts == 12);
  for (char const* plain : {"yZRlqg==", "yZRlqg==-", "yZRlqg==-0", "yZRlqg==-1x", "", "-"}) {
    CAPTURE(std::string(plain));
    CHECK_FALSE(cs::split_composite(plain));
  }
}

}  // namespace checksum_combine_test
