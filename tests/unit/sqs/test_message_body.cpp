// Message bodies (sqs/message_body.hpp): SQS's character set and size
// limits, and the MD5 digests SQS reports.

#include <floe/sqs/message_body.hpp>

#include <doctest/doctest.h>

#include <string>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace sqs_message_body_test {

using namespace floe::sqs;

namespace {

// UTF-8 of one code point.
std::string utf8(std::uint32_t cp) {
  std::string s;
  if (cp < 0x80) {
    s += static_cast<char>(cp);
  } else if (cp < 0x800) {
    s += static_cast<char>(0xC0 | (cp >> 6));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    s += static_cast<char>(0xE0 | (cp >> 12));
    s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    s += static_cast<char>(0xF0 | (cp >> 18));
    s += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  }
  return s;
}

bool allowed(std::uint32_t cp) {
  return check_message_body("x" + utf8(cp) + "y", default_max_message_bytes, "MessageBody").has_value();
}

}  // namespace

TEST_CASE("the characters SQS allows are accepted, at the edges of every range") {
  for (std::uint32_t cp : {0x9u, 0xAu, 0xDu, 0x20u, 0x7Fu, 0x80u, 0xD7FFu, 0xE000u, 0xFFFDu, 0x10000u, 0x10FFFFu}) {
    CAPTURE(cp);
    CHECK(allowed(cp));
  }
}

TEST_CASE("characters outside the set are refused with the code point and the offset") {
  for (std::uint32_t cp : {0x0u, 0x1u, 0x8u, 0xBu, 0xCu, 0xEu, 0x1Fu, 0xFFFEu, 0xFFFFu}) {
    CAPTURE(cp);
    CHECK_FALSE(allowed(cp));
  }
  auto r = check_message_body(std::string("ab\0c", 4), 1000, "MessageBody");
  REQUIRE(r.has_error());
  CHECK(r.error().code == floe::errc::invalid_argument);
  CHECK(r.error().diag.message.find("MessageBody holds U+0000 at byte 2") == 0);
  auto nc = check_message_body("\xef\xbf\xbe", 1000, "entry 'a' MessageBody");
  REQUIRE(nc.has_error());
  CHECK(nc.error().diag.message.find("entry 'a' MessageBody holds U+FFFE at byte 0") == 0);
}

TEST_CASE("a body that is not UTF-8 is refused with the offset of the bad byte") {
  auto r = check_message_body("okay\xff", 1000, "MessageBody");
  REQUIRE(r.has_error());
  CHECK(r.error().diag.message == "MessageBody is not valid UTF-8 (byte 4)");
  CHECK(check_message_body("\xed\xa0\x80", 1000, "b").has_error());      // an encoded surrogate
  CHECK(check_message_body("\xe0\x80\xaf", 1000, "b").has_error());      // overlong '/'
  CHECK(check_message_body("\xf4\x90\x80\x80", 1000, "b").has_error());  // above U+10FFFF
  auto cut = check_message_body("ab\xe4\xb8", 1000, "b");
  REQUIRE(cut.has_error());
  CHECK(cut.error().diag.message == "b is not valid UTF-8 (truncated at byte 2)");
}

TEST_CASE("empty bodies and bodies over the limit are refused; the limit defaults to 256 KiB and caps at 1 MiB") {
  auto empty = check_message_body("", default_max_message_bytes, "MessageBody");
  REQUIRE(empty.has_error());
  CHECK(empty.error().diag.message == "MessageBody is empty (SQS needs at least one character)");

  std::string const at_limit(default_max_message_bytes, 'a');
  CHECK(check_message_body(at_limit, default_max_message_bytes, "b").has_value());
  auto over = check_message_body(at_limit + "a", default_max_message_bytes, "MessageBody");
  REQUIRE(over.has_error());
  CHECK(over.error().diag.message == "MessageBody is 262145 bytes, more than the limit of 262144 bytes");

  std::string const mib(service_max_message_bytes, 'a');
  CHECK(check_message_body(mib, 0, "b").has_value());  // 0: the service's own maximum
  CHECK(check_message_body(mib + "a", 0, "b").has_error());
  CHECK(check_message_body(mib + "a", 10 * service_max_message_bytes, "b").has_error());
  CHECK(check_message_body("abcd", 3, "b").has_error());
}

TEST_CASE("MD5 digests are SQS's lower-case hex, compared in either case") {
  CHECK(md5_hex("") == "d41d8cd98f00b204e9800998ecf8427e");
  CHECK(md5_hex("hello floe") == "69424413137493d1f3f64be05060f2a8");  // moto's MD5OfMessageBody
  CHECK(md5_matches("69424413137493D1F3F64BE05060F2A8", "hello floe"));
  CHECK_FALSE(md5_matches("69424413137493d1f3f64be05060f2a9", "hello floe"));
  CHECK_FALSE(md5_matches("69424413137493d1f3f64be05060f2a", "hello floe"));
  CHECK_FALSE(md5_matches("", "hello floe"));
}

}  // namespace sqs_message_body_test
