// spill_buffer (src/cli/spill_buffer.hpp): text held in memory up to a
// bound, then in an unlinked temporary file, written out in order.
#include "spill_buffer.hpp"

#include <doctest/doctest.h>

#include <cstdio>
#include <string>
#include <unistd.h>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace cli_spill_buffer_test {

namespace {

// What `write` puts on fd 1, read back from a temporary file put there.
template <class Write>
std::string stdout_of(Write write, bool& ok) {
  std::fflush(stdout);
  std::FILE* capture = std::tmpfile();
  REQUIRE(capture != nullptr);
  int const saved = ::dup(1);
  REQUIRE(saved >= 0);
  REQUIRE(::dup2(::fileno(capture), 1) >= 0);
  ok = write();
  ::dup2(saved, 1);
  ::close(saved);
  std::string out;
  std::rewind(capture);
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, capture)) > 0;) out.append(buf, n);
  std::fclose(capture);
  return out;
}

}  // namespace

TEST_CASE("spill_buffer: under its bound the text stays in memory and comes out whole") {
  floe::cli::spill_buffer b(1024);
  CHECK(b.empty());
  REQUIRE(b.append("\"a/\"").has_value());
  REQUIRE(b.append(",\"b/\"").has_value());
  CHECK_FALSE(b.empty());
  bool ok = false;
  CHECK(stdout_of([&] { return b.write_to_stdout(); }, ok) == "\"a/\",\"b/\"");
  CHECK(ok);
}

TEST_CASE("spill_buffer: past its bound the text goes to a file and comes back in order, the rest after it") {
  floe::cli::spill_buffer b(64);
  std::string expected;
  for (int i = 0; i < 5000; ++i) {  // ~60 KiB through a 64-byte bound: hundreds of spills
    std::string piece = (i == 0 ? "" : ",") + ("\"prefix-" + std::to_string(i) + "/\"");
    REQUIRE(b.append(piece).has_value());
    expected += piece;
  }
  bool ok = false;
  std::string const out = stdout_of([&] { return b.write_to_stdout(); }, ok);
  CHECK(ok);
  CHECK(out.size() == expected.size());
  CHECK(out == expected);
}

}  // namespace cli_spill_buffer_test
