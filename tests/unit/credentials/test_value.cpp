#include <floe/credentials/credentials.hpp>

#include <doctest/doctest.h>

#include <sstream>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace credentials_value_test {

using namespace floe::credentials;
using namespace std::chrono;

namespace {
credentials sample() {
  credentials c;
  c.access_key_id = "AKIAIOSFODNN7EXAMPLE";
  c.secret_access_key = secret_string("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY");
  c.session_token = secret_string("FwoGZXIvYXdzEXAMPLETOKEN");
  c.source = "environment";
  c.generation = 7;
  c.expiry = sys_days{2030y / 1 / 2} + 3h + 4min + 5s;
  return c;
}
}  // namespace

TEST_CASE("credentials print only the key id prefix, never the secret or the token") {
  auto c = sample();
  std::ostringstream os;
  os << c << ' ' << c.secret_access_key << ' ' << c.session_token;
  auto s = os.str();
  CHECK(s.find("wJalr") == std::string::npos);
  CHECK(s.find("FwoG") == std::string::npos);
  CHECK(s.find("IOSFODNN") == std::string::npos);
  CHECK(s.find("AKIA****") != std::string::npos);
  CHECK(s.find("session token") != std::string::npos);
  CHECK(s.find("2030-01-02T03:04:05Z") != std::string::npos);
  CHECK(s.find("generation 7") != std::string::npos);
  CHECK(s.find("<redacted>") != std::string::npos);
  CHECK(c.to_string() == "credentials{key AKIA****, session token, expires 2030-01-02T03:04:05Z, from environment, generation 7}");
}

TEST_CASE("redact_key_id shows at most half of a short id and no control characters") {
  CHECK(redact_key_id("AKIAIOSFODNN7EXAMPLE") == "AKIA****");
  CHECK(redact_key_id("abc") == "a****");
  CHECK(redact_key_id("") == "****");
  CHECK(redact_key_id("\n\rxxyy") == "??x****");
}

TEST_CASE("secret_string compares by content and reveals only on request") {
  secret_string a("s3cr3t"), b("s3cr3t"), c("s3cr3T"), d("s3cr3");
  CHECK(a == b);
  CHECK_FALSE(a == c);
  CHECK_FALSE(a == d);
  CHECK(a.reveal() == "s3cr3t");
  secret_string moved(std::move(a));
  CHECK(moved.reveal() == "s3cr3t");
  secret_string copy;
  copy = moved;
  CHECK(copy == moved);
  std::ostringstream os;
  os << secret_string();
  CHECK(os.str() == "<empty>");
}

TEST_CASE("expired_at compares the expiry with the time given") {
  auto c = sample();
  CHECK_FALSE(c.expired_at(*c.expiry - 1s));
  CHECK(c.expired_at(*c.expiry));
  c.expiry.reset();
  CHECK_FALSE(c.expired_at(sys_days{9999y / 1 / 1}));
}

TEST_CASE("parse_iso8601 accepts the forms AWS writes and rejects the rest") {
  auto base = sys_days{2024y / 5 / 1} + 12h;
  CHECK(*parse_iso8601("2024-05-01T12:00:00Z") == base);
  CHECK(*parse_iso8601("2024-05-01t12:00:00z") == base);
  CHECK(*parse_iso8601("2024-05-01 12:00:00Z") == base);
  CHECK(*parse_iso8601("2024-05-01T12:00:00.123456Z") == base);
  CHECK(*parse_iso8601("2024-05-01T14:00:00+02:00") == base);
  CHECK(*parse_iso8601("2024-05-01T14:30:00+0230") == base);
  CHECK(*parse_iso8601("2024-05-01T10:00:00-02") == base);
  CHECK(*parse_iso8601("2024-02-29T00:00:00Z") == sys_days{2024y / 2 / 29});
  for (auto bad : {"", "2024-05-01", "2024-05-01T12:00:00", "2024-05-01T12:00:00ZZ", "2024-13-01T00:00:00Z",
                   "2023-02-29T00:00:00Z", "2024-05-01T24:00:00Z", "2024-05-01T12:00:00.Z", "2024/05/01T12:00:00Z",
                   "2024-05-01T12:00:00+2", "２０２４-05-01T12:00:00Z", "1714564800"}) {
    auto r = parse_iso8601(bad);
    CHECK_MESSAGE(r.has_error(), bad);
    if (r.has_error()) CHECK(r.error().code == floe::errc::invalid_argument);
  }
}

TEST_CASE("format_iso8601 round-trips") {
  auto t = sys_days{1999y / 12 / 31} + 23h + 59min + 58s;
  CHECK(format_iso8601(t) == "1999-12-31T23:59:58Z");
  CHECK(*parse_iso8601(format_iso8601(t)) == t);
}

// Found by fuzz_json_credentials: a zone offset carried a time past the four
// digits of the year, which then printed as "out-of-range" (and far-off
// times wrapped in the calendar conversion).
TEST_CASE("parse_iso8601 accepts only times of the years 0000 to 9999 in UTC; format_iso8601 says when out of range") {
  CHECK(format_iso8601(*parse_iso8601("9999-12-31T23:59:59Z")) == "9999-12-31T23:59:59Z");
  CHECK(format_iso8601(*parse_iso8601("0000-01-01T00:00:00Z")) == "0000-01-01T00:00:00Z");
  CHECK(format_iso8601(*parse_iso8601("9999-12-31T23:59:59+05:00")) == "9999-12-31T18:59:59Z");
  for (auto bad : {"9999-12-31T23:59:59-00:01", "9999-12-31T23:59:59-23:59", "0000-01-01T00:00:00+00:01"}) {
    auto r = parse_iso8601(bad);
    REQUIRE_MESSAGE(r.has_error(), bad);
    CHECK(r.error().code == floe::errc::invalid_argument);
    CHECK(r.error().diag.message.find("0000 to 9999") != std::string::npos);
  }
  CHECK(format_iso8601(sys_days{10000y / 1 / 1}) == "out-of-range");
  CHECK(format_iso8601(sys_days{-1y / 12 / 31}) == "out-of-range");
  CHECK(format_iso8601(std::chrono::sys_seconds{std::chrono::seconds{9'223'372'036'854'775'807LL / 1000}}) ==
        "out-of-range");
}

TEST_CASE("check_credential_field refuses what cannot go into a header, without quoting the value") {
  CHECK(check_credential_field("AKIA/+=abc", "k").has_value());
  for (std::string bad : {std::string(""), std::string("ab cd"), std::string("ab\ncd"), std::string("ab\r"),
                          std::string("a\tb"), std::string("ab\x01"), std::string("\xc3\xbc"), std::string("a\0b", 3)}) {
    auto r = check_credential_field(bad, "the field");
    REQUIRE(r.has_error());
    CHECK(r.error().code == floe::errc::invalid_argument);
    CHECK(r.error().diag.message.rfind("the field", 0) == 0);
    if (bad.size() > 1) CHECK(r.error().diag.message.find(bad) == std::string::npos);
  }
}

}  // namespace credentials_value_test
