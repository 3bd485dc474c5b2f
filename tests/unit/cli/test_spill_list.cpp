// spill_list (src/cli/spill_list.hpp): names held in memory up to a bound,
// then in an unlinked temporary file, read back once in order.
#include "spill_list.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace cli_spill_list_test {

namespace {

std::vector<std::string> read_all(floe::cli::spill_list& l) {
  std::vector<std::string> out;
  std::string s;
  for (;;) {
    auto r = l.next(s);
    REQUIRE(r.has_value());
    if (!*r) return out;
    out.push_back(s);
  }
}

}  // namespace

TEST_CASE("spill_list: under its bound the names stay in memory and come back in order") {
  floe::cli::spill_list l(1024);
  CHECK(l.empty());
  std::vector<std::string> const names{"a-b", "", "a/b", std::string("nul\0inside", 10), "a\nnewline"};
  for (auto const& n : names) REQUIRE(l.push_back(n).has_value());
  CHECK(l.size() == names.size());
  CHECK(read_all(l) == names);
  std::string s;
  CHECK(l.next(s).value() == false);  // stays at its end
}

TEST_CASE("spill_list: past its bound the names go to a file and come back in order, the rest after them") {
  floe::cli::spill_list l(64);
  std::vector<std::string> names;
  for (int i = 0; i < 5000; ++i) {  // ~100 KiB through a 64-byte bound: hundreds of spills
    names.push_back("sub/dir/key-" + std::to_string(i) + std::string(static_cast<std::size_t>(i % 7), 'x'));
    REQUIRE(l.push_back(names.back()).has_value());
  }
  CHECK(l.size() == 5000);
  CHECK(read_all(l) == names);
}

TEST_CASE("spill_list: nothing is appended once reading has begun") {
  floe::cli::spill_list l;
  REQUIRE(l.push_back("a").has_value());
  std::string s;
  REQUIRE(l.next(s).value());
  CHECK_FALSE(l.push_back("b").has_value());
}

}  // namespace cli_spill_list_test
