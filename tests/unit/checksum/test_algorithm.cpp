// Algorithm names as S3 spells them, parsing with clear errors, base64 and
// the digest form (big-endian bytes).
#include <floe/checksum/algorithm.hpp>
#include <floe/checksum/base64.hpp>

#include <doctest/doctest.h>

#include <array>
#include <string>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace checksum_algorithm_test {

namespace cs = floe::checksum;

TEST_CASE("each algorithm's names and digest size as S3 has them") {
  struct row {
    cs::algorithm alg;
    char const* s3;
    char const* header;
    std::size_t size;
  };
  row const rows[] = {
      {cs::algorithm::crc32, "CRC32", "x-amz-checksum-crc32", 4},
      {cs::algorithm::crc32c, "CRC32C", "x-amz-checksum-crc32c", 4},
      {cs::algorithm::crc64nvme, "CRC64NVME", "x-amz-checksum-crc64nvme", 8},
      {cs::algorithm::sha1, "SHA1", "x-amz-checksum-sha1", 20},
      {cs::algorithm::sha256, "SHA256", "x-amz-checksum-sha256", 32},
  };
  CHECK(cs::all_algorithms.size() == std::size(rows));
  for (auto const& r : rows) {
    CAPTURE(std::string(r.s3));
    CHECK(cs::s3_name(r.alg) == r.s3);
    CHECK(cs::header_name(r.alg) == r.header);
    CHECK(cs::digest_size(r.alg) == r.size);
    CHECK(cs::is_crc(r.alg) == (r.size <= 8));
    auto parsed = cs::parse_algorithm(r.s3);
    REQUIRE(parsed.has_value());
    CHECK(*parsed == r.alg);
    CHECK(cs::algorithm_of_header(r.header) == r.alg);
  }
}

TEST_CASE("parse_algorithm ignores case and names the bad value") {
  CHECK(cs::parse_algorithm("crc64nvme").value() == cs::algorithm::crc64nvme);
  CHECK(cs::parse_algorithm("Sha256").value() == cs::algorithm::sha256);
  CHECK(cs::parse_algorithm("cRc32C").value() == cs::algorithm::crc32c);
  for (char const* bad : {"", "CRC", "CRC64", "MD5", "SHA-256", "crc32 ", "x-amz-checksum-crc32"}) {
    CAPTURE(std::string(bad));
    auto r = cs::parse_algorithm(bad);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == floe::errc::invalid_argument);
    CHECK(r.error().diag.message ==
          "unknown checksum algorithm '" + std::string(bad) + "' (expected CRC32, CRC32C, CRC64NVME, SHA1 or SHA256)");
  }
}

TEST_CASE("algorithm_of_header: any case; other x-amz-checksum-* headers are not algorithms") {
  CHECK(cs::algorithm_of_header("X-Amz-Checksum-CRC64NVME") == cs::algorithm::crc64nvme);
  CHECK_FALSE(cs::algorithm_of_header("x-amz-checksum-mode"));
  CHECK_FALSE(cs::algorithm_of_header("x-amz-checksum-type"));
  CHECK_FALSE(cs::algorithm_of_header("x-amz-checksum-"));
  CHECK_FALSE(cs::algorithm_of_header("content-md5"));
}

TEST_CASE("checksum types: names, parsing, and which algorithm S3 takes with which") {
  CHECK(cs::s3_name(cs::checksum_type::full_object) == "FULL_OBJECT");
  CHECK(cs::s3_name(cs::checksum_type::composite) == "COMPOSITE");
  CHECK(cs::parse_checksum_type("full_object").value() == cs::checksum_type::full_object);
  CHECK(cs::parse_checksum_type("COMPOSITE").value() == cs::checksum_type::composite);
  auto bad = cs::parse_checksum_type("FULL");
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error().diag.message == "unknown checksum type 'FULL' (expected FULL_OBJECT or COMPOSITE)");
  using cs::algorithm;
  using cs::checksum_type;
  CHECK(cs::supports(algorithm::crc64nvme, checksum_type::full_object));
  CHECK_FALSE(cs::supports(algorithm::crc64nvme, checksum_type::composite));
  CHECK(cs::supports(algorithm::crc32, checksum_type::full_object));
  CHECK(cs::supports(algorithm::crc32c, checksum_type::composite));
  CHECK_FALSE(cs::supports(algorithm::sha256, checksum_type::full_object));
  CHECK(cs::supports(algorithm::sha1, checksum_type::composite));
}

TEST_CASE("base64: RFC 4648 test vectors both ways") {
  std::pair<char const*, char const*> const vectors[] = {
      {"", ""},         {"f", "Zg=="},         {"fo", "Zm8="},         {"foo", "Zm9v"},
      {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"},
  };
  for (auto const& v : vectors) {
    char const* const plain = v.first;
    char const* const coded = v.second;
    CAPTURE(std::string(coded));
    std::string_view const p(plain);
    CHECK(cs::base64_encode({reinterpret_cast<unsigned char const*>(p.data()), p.size()}) == coded);
    std::array<unsigned char, 8> out{};
    auto n = cs::base64_decode(coded, out);
    REQUIRE(n);
    CHECK(std::string(reinterpret_cast<char const*>(out.data()), *n) == plain);
  }
  std::array<unsigned char, 3> const high = {0xfb, 0xff, 0xbf};
  CHECK(cs::base64_encode(high) == "+/+/");
}

TEST_CASE("base64_decode refuses what is not canonical padded base64, or too long for the buffer") {
  std::array<unsigned char, 8> out{};
  for (char const* bad : {"Zg", "Zg=", "Zh==", "Zm9=", "Z===", "====", "Zg==Zg==", "Zm9v!A==", "Zm 9v", "Zm9v\n",
                          "Zm-_", "AAAAAAAAAAAA"}) {
    CAPTURE(std::string(bad));
    CHECK_FALSE(cs::base64_decode(bad, out));
  }
  CHECK(cs::base64_decode("AAAAAAAAAAA=", out) == 8u);
}

TEST_CASE("a digest is big-endian; parse_digest checks the size and names algorithm and value") {
  auto d = cs::digest::of_crc(cs::algorithm::crc32, 0x0D4A1185u);
  CHECK(d.size() == 4);
  CHECK(d.bytes()[0] == 0x0D);
  CHECK(d.bytes()[3] == 0x85);
  CHECK(d.base64() == "DUoRhQ==");
  CHECK(d.crc() == 0x0D4A1185u);
  auto d64 = cs::digest::of_crc(cs::algorithm::crc64nvme, 0xAE8B14860A799888u);
  CHECK(d64.bytes()[0] == 0xAE);
  CHECK(d64.bytes()[7] == 0x88);
  CHECK(d64.crc() == 0xAE8B14860A799888u);

  auto back = cs::parse_digest(cs::algorithm::crc32, "DUoRhQ==");
  REQUIRE(back.has_value());
  CHECK(*back == d);
  auto back64 = cs::parse_digest(cs::algorithm::crc64nvme, d64.base64());
  REQUIRE(back64.has_value());
  CHECK(*back64 == d64);

  auto wrong_size = cs::parse_digest(cs::algorithm::crc64nvme, "DUoRhQ==");
  REQUIRE_FALSE(wrong_size.has_value());
  CHECK(wrong_size.error().code == floe::errc::invalid_argument);
  CHECK(wrong_size.error().diag.message == "checksum value 'DUoRhQ==' is not a CRC64NVME value (the base64 of 8 bytes)");
  auto not_base64 = cs::parse_digest(cs::algorithm::sha256, "not base64");
  REQUIRE_FALSE(not_base64.has_value());
  CHECK(not_base64.error().diag.message == "checksum value 'not base64' is not a SHA256 value (the base64 of 32 bytes)");
  CHECK(cs::digest{}.crc() == 0);
  cs::digest sha{};
  sha.alg = cs::algorithm::sha1;
  CHECK(sha.crc() == 0);
}

}  // namespace checksum_algorithm_test
