#include <floe/retry/clock_skew.hpp>

#include <doctest/doctest.h>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace retry_clock_skew_test {

using namespace std::chrono;
using namespace floe::retry;

TEST_CASE("HTTP dates: IMF-fixdate, RFC 850 and asctime parse to the same instant") {
  sys_seconds const want = sys_days{year{1994} / November / 6} + 8h + 49min + 37s;
  CHECK(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT") == want);
  CHECK(parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT") == want);
  CHECK(parse_http_date("Sun Nov  6 08:49:37 1994") == want);
}

TEST_CASE("malformed HTTP dates are rejected") {
  CHECK_FALSE(parse_http_date(""));
  CHECK_FALSE(parse_http_date("Sun, 06 Nov 1994 08:49:37"));
  CHECK_FALSE(parse_http_date("Sun, 31 Feb 1994 08:49:37 GMT"));
  CHECK_FALSE(parse_http_date("Sun, 06 Foo 1994 08:49:37 GMT"));
  CHECK_FALSE(parse_http_date("Sun, 06 Nov 1994 25:49:37 GMT"));
  CHECK_FALSE(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT trailing"));
}

TEST_CASE("skew is server time minus local time") {
  auto const local = sys_days{year{2024} / January / 1} + 12h;
  auto s = skew_from_date("Mon, 01 Jan 2024 12:20:00 GMT", local);
  REQUIRE(s);
  CHECK(*s == 20min);
  CHECK(skew_is_significant(*s));
  s = skew_from_date("Mon, 01 Jan 2024 11:59:00 GMT", local + 500ms);
  REQUIRE(s);
  CHECK(*s == -1min);
  CHECK_FALSE(skew_is_significant(*s));
  CHECK_FALSE(skew_from_date("garbage", local));
}

}  // namespace retry_clock_skew_test
