// The guard of a paginated listing (s3/detail/pagination.hpp), pure.
#include <floe/s3/detail/pagination.hpp>

#include <doctest/doctest.h>

#include <string>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace s3_pagination_test {

using floe::s3::detail::pagination_guard;

TEST_CASE("new tokens with entries go on, however many pages") {
  pagination_guard g;
  for (int i = 0; i < 5000; ++i) REQUIRE(g.next("token-" + std::to_string(i), 1000).empty());
  CHECK(g.pages() == 5000);
}

TEST_CASE("a token seen before in the same listing ends it, naming the loop (A, B, A)") {
  pagination_guard g;
  CHECK(g.next("A", 1000).empty());
  CHECK(g.next("B", 1000).empty());
  auto why = g.next("A", 1000);
  CHECK(why == "page 3 hands back a continuation token seen before in this listing: the pages would loop forever");
}

TEST_CASE("the same token twice in a row is a loop too") {
  pagination_guard g;
  CHECK(g.next("A", 3).empty());
  CHECK_FALSE(g.next("A", 3).empty());
}

TEST_CASE("a truncated page without a token would start over: refused") {
  pagination_guard g;
  CHECK(g.next("", 1000).find("names no continuation token") != std::string::npos);
}

TEST_CASE("empty pages with new tokens end after the bound; a page with entries resets the count") {
  pagination_guard g(3);
  CHECK(g.next("a", 0).empty());
  CHECK(g.next("b", 0).empty());
  CHECK(g.next("c", 5).empty());  // resets
  CHECK(g.next("d", 0).empty());
  CHECK(g.next("e", 0).empty());
  CHECK(g.next("f", 0) == "3 pages in a row held no entry, each with a new continuation token: the listing was stopped");
}

TEST_CASE("the default bound: 100 empty pages") {
  pagination_guard g;
  for (int i = 0; i < 99; ++i) REQUIRE(g.next("e" + std::to_string(i), 0).empty());
  CHECK_FALSE(g.next("e99", 0).empty());
}

}  // namespace s3_pagination_test
