// Object patterns: '*' within a segment, '**' across segments, the edges.
#include <floe/watch/pattern.hpp>

#include <doctest/doctest.h>

#include <string>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace watch_pattern_test {

using floe::errc;
using namespace floe::watch;

namespace {

pattern P(char const* text) {
  auto p = pattern::parse(text);
  REQUIRE_MESSAGE(p.has_value(), (p ? std::string() : p.error().what()));
  return *p;
}

}  // namespace

TEST_CASE("match_segment: '*' is any run of bytes, none included") {
  CHECK(match_segment("*.parquet", "a.parquet"));
  CHECK(match_segment("*.parquet", ".parquet"));
  CHECK_FALSE(match_segment("*.parquet", "a.parquet.tmp"));
  CHECK(match_segment("a*b*c", "abc"));
  CHECK(match_segment("a*b*c", "aXbYbZc"));
  CHECK_FALSE(match_segment("a*b*c", "aXbYbZ"));
  CHECK(match_segment("*", ""));
  CHECK(match_segment("**x", "x"));  // inside match_segment a star is a star
  CHECK(match_segment("", ""));
  CHECK_FALSE(match_segment("", "a"));
  CHECK_FALSE(match_segment("a", ""));
  CHECK(match_segment("?", "?"));  // literal
  CHECK_FALSE(match_segment("?", "a"));
}

TEST_CASE("the issue's form: s3://bucket/prefix/**/*.parquet") {
  auto p = P("s3://lake/raw/**/*.parquet");
  CHECK(p.bucket() == "lake");
  CHECK(p.text() == "s3://lake/raw/**/*.parquet");
  CHECK(p.matches("lake", "raw/a.parquet"));  // ** in the middle: none
  CHECK(p.matches("lake", "raw/2024/a.parquet"));
  CHECK(p.matches("lake", "raw/2024/05/01/a.parquet"));
  CHECK_FALSE(p.matches("lake", "raw/2024/a.csv"));
  CHECK_FALSE(p.matches("lake", "cooked/a.parquet"));
  CHECK_FALSE(p.matches("lake2", "raw/a.parquet"));
  CHECK_FALSE(p.matches("lak", "raw/a.parquet"));
  CHECK_FALSE(p.matches("lake", "raw"));
  CHECK_FALSE(p.matches("lake", "rawx/a.parquet"));
}

TEST_CASE("'*' does not cross '/'") {
  auto p = P("s3://b/in/*.csv");
  CHECK(p.matches("b", "in/a.csv"));
  CHECK_FALSE(p.matches("b", "in/x/a.csv"));
  CHECK_FALSE(p.matches("b", "in/a.csv/b"));
  auto q = P("s3://b/in*");
  CHECK(q.matches("b", "in"));
  CHECK(q.matches("b", "inbox"));
  CHECK_FALSE(q.matches("b", "in/x"));
}

TEST_CASE("'**' at the start and at the end") {
  auto start = P("s3://b/**/_SUCCESS");
  CHECK(start.matches("b", "_SUCCESS"));
  CHECK(start.matches("b", "a/_SUCCESS"));
  CHECK(start.matches("b", "a/b/c/_SUCCESS"));
  CHECK_FALSE(start.matches("b", "a/_SUCCESS/x"));
  CHECK_FALSE(start.matches("b", "a/x_SUCCESS"));

  auto end = P("s3://b/data/**");
  CHECK(end.matches("b", "data/x"));
  CHECK(end.matches("b", "data/x/y/z"));
  CHECK(end.matches("b", "data/"));  // a folder marker: one empty segment under data/
  CHECK_FALSE(end.matches("b", "data"));  // under data/, not data itself
  CHECK_FALSE(end.matches("b", "database/x"));

  auto all = P("s3://b/**");
  CHECK(all.matches("b", "x"));
  CHECK(all.matches("b", "x/y"));
  CHECK(all.matches("b", "/"));
  CHECK_FALSE(all.matches("c", "x"));

  auto both = P("s3://b/**/x/**");
  CHECK(both.matches("b", "x/1"));
  CHECK(both.matches("b", "a/b/x/1/2"));
  CHECK_FALSE(both.matches("b", "a/x"));
}

TEST_CASE("several '**' and back-tracking") {
  auto p = P("s3://b/**/a/**/b/*.p");
  CHECK(p.matches("b", "a/b/x.p"));
  CHECK(p.matches("b", "1/a/2/b/3/a/4/b/x.p"));
  CHECK(p.matches("b", "a/a/a/b/b/x.p"));
  CHECK_FALSE(p.matches("b", "a/b/x.q"));
  CHECK_FALSE(p.matches("b", "b/a/x.p"));
  // Redundant ** collapse to one.
  CHECK(P("s3://b/x/**/**/y").matches("b", "x/y"));
  CHECK(P("s3://b/x/**/**/y").matches("b", "x/1/2/y"));
  // A long key of many segments against many stars stays quick (greedy, no blow-up).
  std::string key;
  for (int i = 0; i < 500; ++i) key += "a/";
  key += "c";
  CHECK_FALSE(P("s3://b/**/a/**/a/**/a/**/b").matches("b", key));
  CHECK(P("s3://b/**/a/**/a/**/a/**/c").matches("b", key));
}

TEST_CASE("empty segments are segments") {
  auto p = P("s3://b/a//b");
  CHECK(p.matches("b", "a//b"));
  CHECK_FALSE(p.matches("b", "a/b"));
  auto q = P("s3://b/a/*/b");
  CHECK(q.matches("b", "a//b"));  // '*' matches an empty segment
  CHECK(q.matches("b", "a/x/b"));
  CHECK_FALSE(q.matches("b", "a/x/y/b"));
  CHECK(P("s3://b//x").matches("b", "/x"));  // a key starting with '/'
  CHECK_FALSE(P("s3://b//x").matches("b", "x"));
}

TEST_CASE("unicode keys match byte for byte; '*' spans multi-byte characters") {
  auto p = P("s3://b/d\xc3\xa9j\xc3\xa0/*.parquet");
  CHECK(p.matches("b", "d\xc3\xa9j\xc3\xa0/\xe2\x98\x83.parquet"));
  CHECK_FALSE(p.matches("b", "deja/x.parquet"));
  CHECK(P("s3://b/*\xe2\x98\x83*").matches("b", "a\xe2\x98\x83z"));
  CHECK(P("s3://b/in/day 1/a+b%c*").matches("b", "in/day 1/a+b%c \xc3\xa9\xe2\x98\x83.parquet"));
}

TEST_CASE("a trailing '/', a bare bucket: everything under it") {
  auto p = P("s3://b/in/");
  CHECK(p.matches("b", "in/x"));
  CHECK(p.matches("b", "in/x/y"));
  CHECK_FALSE(p.matches("b", "in"));
  CHECK_FALSE(p.matches("b", "out/x"));
  CHECK(P("s3://b").matches("b", "anything/at/all"));
  CHECK(P("s3://b/").matches("b", "k"));
  CHECK_FALSE(P("s3://b").matches("a", "k"));
  // Without a wildcard, a pattern names one key.
  CHECK(P("s3://b/in/x.csv").matches("b", "in/x.csv"));
  CHECK_FALSE(P("s3://b/in/x.csv").matches("b", "in/x.csv2"));
}

TEST_CASE("bad patterns are refused with the reason") {
  auto reason = [](char const* text) {
    auto p = pattern::parse(text);
    REQUIRE_FALSE(p.has_value());
    CHECK(p.error().code == floe::make_error_code(errc::invalid_argument));
    return p.error().diag.message;
  };
  CHECK(reason("lake/raw/*").find("s3://BUCKET") != std::string::npos);
  CHECK(reason("S3://lake/x").find("s3://BUCKET") != std::string::npos);
  CHECK(reason("s3://").find("no bucket") != std::string::npos);
  CHECK(reason("s3:///x").find("no bucket") != std::string::npos);
  CHECK(reason("s3://la*/x").find("literal") != std::string::npos);
  CHECK(reason("s3://b/a**/x").find("whole path segment") != std::string::npos);
  CHECK(reason("s3://b/**x").find("whole path segment") != std::string::npos);
  CHECK(reason("s3://b/x/***").find("whole path segment") != std::string::npos);
  CHECK(reason(("s3://b/" + std::string(3000, 'x')).c_str()).find("2048") != std::string::npos);
}

TEST_CASE("matches_any") {
  std::vector<pattern> ps{P("s3://a/**/*.csv"), P("s3://b/in/*")};
  CHECK(matches_any(ps, "a", "x/y.csv"));
  CHECK(matches_any(ps, "b", "in/z"));
  CHECK_FALSE(matches_any(ps, "b", "in/z/w"));
  CHECK_FALSE(matches_any({}, "a", "x.csv"));
}

}  // namespace watch_pattern_test
