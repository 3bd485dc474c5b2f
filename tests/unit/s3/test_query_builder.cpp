// The query string of an S3 request by the SigV4 rules
// (s3/query_builder.hpp).
#include <floe/s3/query_builder.hpp>

#include <doctest/doctest.h>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace s3_query_builder_test {

using namespace floe::s3;

TEST_CASE("query: names and values encoded by SigV4 rules and sorted; flags bare on the wire") {
  query_builder q;
  q.add("prefix", "a/b c+d=e&f~").add("list-type", "2").add("encoding-type", "url").add_flag("delete");
  CHECK(q.str() == "delete&encoding-type=url&list-type=2&prefix=a%2Fb%20c%2Bd%3De%26f~");
  CHECK(q.canonical() == "delete=&encoding-type=url&list-type=2&prefix=a%2Fb%20c%2Bd%3De%26f~");
  auto v = q.params();
  REQUIRE(v.size() == 4);
  CHECK(v[0].name == "delete");
  CHECK(v[0].value.empty());
  CHECK(v[3].value == "a%2Fb%20c%2Bd%3De%26f~");
}

TEST_CASE("query: sorting is by encoded bytes, then value; unicode and empty values") {
  query_builder q;
  q.add("b", "2").add("b", "1").add("B", "x").add("\xc3\xbc", "\xe2\x82\xac").add("a", "");
  CHECK(q.str() == "%C3%BC=%E2%82%AC&B=x&a=&b=1&b=2");
  CHECK(query_builder().str().empty());
  CHECK(query_builder().empty());
}

}  // namespace s3_query_builder_test
