// floe sqs send --lines: how stdin is cut into messages and batches
// (src/cli/sqs_lines.hpp), without I/O.

#include "sqs_lines.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace cli_sqs_lines_test {

using floe::cli::sqs_line;
using floe::cli::sqs_line_batcher;

namespace {

std::vector<std::string> bodies(std::vector<sqs_line> const& b) {
  std::vector<std::string> out;
  for (auto const& l : b) out.push_back(l.body);
  return out;
}

std::vector<std::uint64_t> numbers(std::vector<sqs_line> const& b) {
  std::vector<std::uint64_t> out;
  for (auto const& l : b) out.push_back(l.number);
  return out;
}

}  // namespace

TEST_CASE("sqs lines: each line a message, newline not part of it, empty lines skipped") {
  sqs_line_batcher b;
  b.feed("one\n\ntwo\r\n  \n");
  CHECK_FALSE(b.take_full());
  auto got = b.take_any();
  REQUIRE(got);
  CHECK(bodies(*got) == std::vector<std::string>{"one", "two\r", "  "});
  CHECK(numbers(*got) == std::vector<std::uint64_t>{1, 3, 4});
  CHECK(b.lines_seen() == 4);
  CHECK_FALSE(b.take_any());
}

TEST_CASE("sqs lines: a line split across reads is one message; a last line without newline counts at the end") {
  sqs_line_batcher b;
  b.feed("hel");
  b.feed("lo\nwor");
  auto first = b.take_any();
  REQUIRE(first);
  CHECK(bodies(*first) == std::vector<std::string>{"hello"});
  CHECK_FALSE(b.take_any());  // "wor" is not a line yet
  b.feed("ld");
  b.finish();
  auto last = b.take_any();
  REQUIRE(last);
  CHECK(bodies(*last) == std::vector<std::string>{"world"});
  CHECK(numbers(*last) == std::vector<std::uint64_t>{2});
}

TEST_CASE("sqs lines: a batch is full at 10 lines; the 11th waits") {
  sqs_line_batcher b;
  std::string in;
  for (int i = 1; i <= 11; ++i) in += "m" + std::to_string(i) + "\n";
  b.feed(in);
  auto full = b.take_full();
  REQUIRE(full);
  CHECK(full->size() == 10);
  CHECK(full->front().body == "m1");
  CHECK(full->back().body == "m10");
  CHECK_FALSE(b.take_full());
  CHECK(b.has_pending());
  auto rest = b.take_any();
  REQUIRE(rest);
  CHECK(bodies(*rest) == std::vector<std::string>{"m11"});
}

TEST_CASE("sqs lines: a batch goes when the next line would take it past the byte limit") {
  sqs_line_batcher b({.max_entries = 10, .max_bytes = 100});
  b.feed(std::string(40, 'a') + "\n" + std::string(40, 'b') + "\n");
  CHECK_FALSE(b.take_full());  // 80 bytes, and no line after them yet
  b.feed(std::string(30, 'c') + "\n");
  auto full = b.take_full();
  REQUIRE(full);
  CHECK(numbers(*full) == std::vector<std::uint64_t>{1, 2});
  CHECK_FALSE(b.take_full());
  auto rest = b.take_any();
  REQUIRE(rest);
  CHECK(numbers(*rest) == std::vector<std::uint64_t>{3});
}

TEST_CASE("sqs lines: exactly the byte limit fits one batch") {
  sqs_line_batcher b({.max_entries = 10, .max_bytes = 100});
  b.feed(std::string(50, 'a') + "\n" + std::string(50, 'b') + "\n");
  CHECK_FALSE(b.take_full());
  auto got = b.take_any();
  REQUIRE(got);
  CHECK(got->size() == 2);
}

TEST_CASE("sqs lines: a line too long is refused by number, not held in memory, and the others go") {
  sqs_line_batcher b({.max_entries = 10, .max_bytes = 100});
  b.feed("before\n");
  for (int i = 0; i < 50; ++i) b.feed(std::string(64, 'x'));  // 3,200 bytes of one line
  b.feed("\nafter\n");
  auto refused = b.take_refused();
  REQUIRE(refused.size() == 1);
  CHECK(refused[0].number == 2);
  CHECK(refused[0].why.code == floe::errc::invalid_argument);
  CHECK(refused[0].why.diag.message.find("line 2") != std::string::npos);
  auto got = b.take_any();
  REQUIRE(got);
  CHECK(bodies(*got) == std::vector<std::string>{"before", "after"});
  CHECK(numbers(*got) == std::vector<std::uint64_t>{1, 3});
  CHECK(b.take_refused().empty());
}

TEST_CASE("sqs lines: a too-long last line without newline is refused at the end") {
  sqs_line_batcher b({.max_entries = 10, .max_bytes = 8});
  b.feed("123456789");
  b.finish();
  auto refused = b.take_refused();
  REQUIRE(refused.size() == 1);
  CHECK(refused[0].number == 1);
  CHECK_FALSE(b.take_any());
}

TEST_CASE("sqs lines: a line SQS would alter or refuse (not UTF-8, a character outside its set) is refused") {
  sqs_line_batcher b;
  b.feed("ok\n\xff\xfe\nbell\x07\nunicode \xc3\xa9\xf0\x9f\x99\x82\n");
  auto refused = b.take_refused();
  REQUIRE(refused.size() == 2);
  CHECK(refused[0].number == 2);
  CHECK(refused[1].number == 3);
  CHECK(refused[1].why.diag.message.find("U+0007") != std::string::npos);
  auto got = b.take_any();
  REQUIRE(got);
  CHECK(bodies(*got) == std::vector<std::string>{"ok", "unicode \xc3\xa9\xf0\x9f\x99\x82"});
}

TEST_CASE("sqs lines: 200 lines make 20 full batches in order, nothing lost") {
  sqs_line_batcher b;
  std::string in;
  for (int i = 1; i <= 200; ++i) in += "line " + std::to_string(i) + "\n";
  // Fed in odd-sized pieces, as a pipe delivers them.
  for (std::size_t at = 0; at < in.size(); at += 7) b.feed(std::string_view(in).substr(at, 7));
  b.finish();
  std::uint64_t next = 1;
  int batches = 0;
  while (auto got = b.take_any()) {
    ++batches;
    CHECK(got->size() == 10);
    for (auto const& l : *got) {
      CHECK(l.number == next);
      CHECK(l.body == "line " + std::to_string(next));
      ++next;
    }
  }
  CHECK(batches == 20);
  CHECK(next == 201);
}

}  // namespace cli_sqs_lines_test
