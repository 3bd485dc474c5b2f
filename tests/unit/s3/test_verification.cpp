// What a GetObject's reply lets floe check its bytes against, and the
// checking itself (s3/detail/verification.hpp), pure: headers in, verdicts
// out.
#include <floe/s3/detail/verification.hpp>

#include <doctest/doctest.h>

#include <optional>
#include <string>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace s3_verification_test {

using namespace floe::s3::detail;
using floe::checksum::algorithm;
using kind = expected_digest::kind;

namespace {
floe::http::fields headers(std::initializer_list<std::pair<char const*, char const*>> kv) {
  floe::http::fields f;
  for (auto& [k, v] : kv) f.set(k, v);
  return f;
}
std::string const hello_md5 = "5eb63bbbe01eeed093cb22bb8f5acdc3";  // MD5("hello world")
}  // namespace

TEST_CASE("a full-object checksum is what a whole GET is checked against; a composite one is not") {
  auto e = expected_of(headers({{"x-amz-checksum-crc32", "DUoRhQ=="}, {"ETag", "\"x\""}}), true);
  CHECK(e.what == kind::checksum);
  CHECK(e.alg == algorithm::crc32);
  CHECK(e.value == "DUoRhQ==");
  e = expected_of(headers({{"x-amz-checksum-crc64nvme", "AAAAAAAAAAA="}, {"x-amz-checksum-type", "FULL_OBJECT"}}), true);
  CHECK(e.what == kind::checksum);
  CHECK(e.alg == algorithm::crc64nvme);
  // Composite, by its "-N" or by its type: nothing (and not the ETag either).
  CHECK(expected_of(headers({{"x-amz-checksum-crc32", "DUoRhQ==-3"}, {"ETag", hello_md5.c_str()}}), true).what ==
        kind::none);
  CHECK(expected_of(headers({{"x-amz-checksum-sha256", "AAAA"}, {"x-amz-checksum-type", "COMPOSITE"}}), true).what ==
        kind::none);
  // A ranged GET (or not a 200): nothing.
  CHECK(expected_of(headers({{"x-amz-checksum-crc32", "DUoRhQ=="}}), false).what == kind::none);
}

TEST_CASE("with no checksum, a plain-MD5 ETag is checked unless SSE-KMS or SSE-C is named") {
  auto e = expected_of(headers({{"ETag", "\"5EB63BBBE01EEED093CB22BB8F5ACDC3\""}}), true);
  CHECK(e.what == kind::md5);
  CHECK(e.value == hello_md5);
  CHECK(expected_of(headers({{"ETag", "\"5eb63bbbe01eeed093cb22bb8f5acdc3-2\""}}), true).what == kind::none);
  CHECK(expected_of(headers({{"ETag", "\"5eb63bbbe01eeed093cb22bb8f5acdcz\""}}), true).what == kind::none);
  CHECK(expected_of(headers({{"ETag", hello_md5.c_str()}, {"x-amz-server-side-encryption", "aws:kms"}}), true).what ==
        kind::none);
  CHECK(expected_of(headers({{"ETag", hello_md5.c_str()}, {"x-amz-server-side-encryption", "AES256"}}), true).what ==
        kind::md5);
  CHECK(expected_of(headers({{"ETag", hello_md5.c_str()},
                             {"x-amz-server-side-encryption-customer-algorithm", "AES256"}}),
                    true)
            .what == kind::none);
}

TEST_CASE("the verifier runs over pieces in order and names the algorithm, the expected and the computed value") {
  body_verifier v;
  CHECK_FALSE(v.started());
  v.start(expected_of(headers({{"x-amz-checksum-crc32", "DUoRhQ=="}}), true));  // CRC32("hello world")
  v.update("hello ");
  v.update("world");
  CHECK(v.mismatch().empty());
  v.start(expected_of(headers({{"ETag", hello_md5.c_str()}}), true));
  v.update("hello world");
  CHECK(v.mismatch().empty());
  v.reset();
  v.start(expected_of(headers({{"ETag", hello_md5.c_str()}}), true));
  v.update("hello worle");
  auto const m = v.mismatch();
  CHECK(m.find("MD5") != std::string::npos);
  CHECK(m.find(hello_md5) != std::string::npos);
  CHECK(m.find("computed ") != std::string::npos);
  v.start(expected_of(headers({{"x-amz-checksum-crc32", "DUoRhQ=="}}), true));
  v.update("hello worle");
  CHECK(v.mismatch().find("CRC32 (x-amz-checksum-crc32) expected DUoRhQ==, computed ") != std::string::npos);
}

TEST_CASE("response_checksum_validation: caller, then the environment, then the profile; bad values named") {
  using floe::s3::checksum_validation;
  auto none = [](std::string_view) -> std::optional<std::string> { return std::nullopt; };
  CHECK(*resolve_checksum_validation(std::nullopt, none, nullptr) == checksum_validation::when_supported);
  CHECK(*resolve_checksum_validation(checksum_validation::when_required, none, nullptr) ==
        checksum_validation::when_required);
  auto env = [](std::string_view n) -> std::optional<std::string> {
    if (n == "AWS_RESPONSE_CHECKSUM_VALIDATION") return std::string("When_Required");
    return std::nullopt;
  };
  CHECK(*resolve_checksum_validation(std::nullopt, env, nullptr) == checksum_validation::when_required);
  floe::credentials::profile prof;
  floe::credentials::profile_setting s;
  s.entry.key = "response_checksum_validation";
  s.entry.value = "never";
  s.entry.line = 3;
  s.file = "config";
  prof.settings.push_back(s);
  auto bad = resolve_checksum_validation(std::nullopt, none, &prof);
  REQUIRE_FALSE(bad.has_value());
  CHECK(std::string(bad.error().what()).find("config:3") != std::string::npos);
  CHECK(validating(std::nullopt, std::nullopt));
  CHECK_FALSE(validating(std::nullopt, checksum_validation::when_required));
  CHECK(validating(checksum_validation::when_supported, checksum_validation::when_required));
}

}  // namespace s3_verification_test
