// The request-body JSON writer (sqs/json_writer.hpp): structure, escaping,
// and refusal of text that is not UTF-8. Read back with simdjson.

#include <floe/sqs/json_writer.hpp>

#include <doctest/doctest.h>

#include <simdjson.h>

#include <string>

using floe::sqs::is_valid_utf8;
using floe::sqs::json_writer;

namespace {

std::string one_string(std::string_view key, std::string_view value) {
  json_writer w;
  w.begin_object();
  w.key(key);
  w.string(value);
  w.end_object();
  auto r = w.finish();
  REQUIRE(r.has_value());
  return *r;
}

std::string read_back(std::string const& doc, char const* key) {
  simdjson::dom::parser p;
  simdjson::dom::element e;
  REQUIRE(p.parse(doc).get(e) == simdjson::SUCCESS);
  std::string_view v;
  REQUIRE(e[key].get(v) == simdjson::SUCCESS);
  return std::string(v);
}

}  // namespace

TEST_CASE("members and elements are separated by commas at every depth") {
  json_writer w;
  w.begin_object();
  w.key("a");
  w.number(1);
  w.key("b");
  w.begin_array();
  w.boolean(true);
  w.boolean(false);
  w.string("x");
  w.begin_object();
  w.end_object();
  w.end_array();
  w.key("c");
  w.begin_object();
  w.key("d");
  w.number(-9223372036854775807LL - 1);
  w.end_object();
  w.key("e");
  w.begin_array();
  w.end_array();
  w.end_object();
  auto r = w.finish();
  REQUIRE(r.has_value());
  CHECK(*r == R"({"a":1,"b":[true,false,"x",{}],"c":{"d":-9223372036854775808},"e":[]})");
}

TEST_CASE("quote, backslash and every control character are escaped; everything else is written as it is") {
  CHECK(one_string("k", "a\"b\\c") == R"({"k":"a\"b\\c"})");
  CHECK(one_string("k", "\n\r\t\b\f") == R"({"k":"\n\r\t\b\f"})");
  CHECK(one_string("k", std::string("\x00\x01\x1f", 3)) == R"({"k":"\u0000\u0001\u001f"})");
  CHECK(one_string("k", "\x7f/<>&'") == "{\"k\":\"\x7f/<>&'\"}");
  CHECK(one_string("k", "\xc3\xa9\xe4\xb8\x96\xf0\x9f\x98\x80") == "{\"k\":\"\xc3\xa9\xe4\xb8\x96\xf0\x9f\x98\x80\"}");
  CHECK(one_string("we\"ird", "v") == R"({"we\"ird":"v"})");
}

TEST_CASE("every byte value below 0x80 and a spread of code points read back unchanged") {
  std::string all;
  for (int c = 0; c < 0x80; ++c) all += static_cast<char>(c);
  CHECK(read_back(one_string("k", all), "k") == all);
  std::string const wide = "\xef\xbf\xbd\xee\x80\x80\xed\x9f\xbf\xf4\x8f\xbf\xbf\xf0\x90\x80\x80 line\r\n";
  CHECK(read_back(one_string("k", wide), "k") == wide);
}

TEST_CASE("a value that is not UTF-8 is refused naming its member, never written altered") {
  json_writer w;
  w.begin_object();
  w.key("QueueUrl");
  w.string("ok");
  w.key("MessageBody");
  w.string("bad \xff byte");
  w.end_object();
  auto r = w.finish();
  REQUIRE(r.has_error());
  CHECK(r.error().code == floe::errc::invalid_argument);
  CHECK(r.error().diag.message == "the value of MessageBody is not valid UTF-8");

  json_writer temp;  // a key that was a temporary is still named right
  temp.begin_object();
  temp.key(std::string("Message") + "Body");
  temp.string("\xfe");
  temp.end_object();
  CHECK(temp.finish().error().diag.message == "the value of MessageBody is not valid UTF-8");

  json_writer element;
  element.begin_array();
  element.string("\xfe");
  element.end_array();
  CHECK(element.finish().error().diag.message == "a string value is not valid UTF-8");

  json_writer k;
  k.begin_object();
  k.key("\xc0\x80");
  k.string("v");
  k.end_object();
  auto rk = k.finish();
  REQUIRE(rk.has_error());
  CHECK(rk.error().diag.message == "a member name is not valid UTF-8");
}

TEST_CASE("unpaired begin and end calls are reported, not written") {
  json_writer open;
  open.begin_object();
  CHECK(open.finish().has_error());
  json_writer extra;
  extra.end_array();
  CHECK(extra.finish().has_error());
  json_writer dangling;
  dangling.begin_object();
  dangling.key("k");
  dangling.end_object();
  CHECK(dangling.finish().has_error());
}

TEST_CASE("UTF-8 validation refuses overlong forms, surrogates, values above U+10FFFF and cut sequences") {
  CHECK(is_valid_utf8(""));
  CHECK(is_valid_utf8("plain ascii"));
  CHECK(is_valid_utf8("\xc2\x80"));          // U+0080
  CHECK(is_valid_utf8("\xed\x9f\xbf"));      // U+D7FF
  CHECK(is_valid_utf8("\xee\x80\x80"));      // U+E000
  CHECK(is_valid_utf8("\xf4\x8f\xbf\xbf"));  // U+10FFFF
  CHECK_FALSE(is_valid_utf8("\xc0\x80"));          // overlong NUL
  CHECK_FALSE(is_valid_utf8("\xc1\xbf"));          // overlong
  CHECK_FALSE(is_valid_utf8("\xe0\x80\x80"));      // overlong 3-byte
  CHECK_FALSE(is_valid_utf8("\xf0\x80\x80\x80"));  // overlong 4-byte
  CHECK_FALSE(is_valid_utf8("\xed\xa0\x80"));      // U+D800, a surrogate
  CHECK_FALSE(is_valid_utf8("\xed\xbf\xbf"));      // U+DFFF
  CHECK_FALSE(is_valid_utf8("\xf4\x90\x80\x80"));  // U+110000
  CHECK_FALSE(is_valid_utf8("\xf5\x80\x80\x80"));
  CHECK_FALSE(is_valid_utf8("\x80"));              // a continuation byte first
  CHECK_FALSE(is_valid_utf8("\xe4\xb8"));          // cut short
  CHECK_FALSE(is_valid_utf8("\xe4\x41\x96"));      // not a continuation byte
  CHECK_FALSE(is_valid_utf8("\xff"));
}
