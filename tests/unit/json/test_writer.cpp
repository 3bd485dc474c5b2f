// The one JSON writer (json/writer.hpp) as its three kinds of callers use
// it: the ledger's objects (bad UTF-8 replaced by U+FFFD), the CLI's --json
// output (DEL and replacements as escapes), SQS request bodies (bad UTF-8
// refused naming its member); its pairing check; splicing values written
// elsewhere. Read back with simdjson where the bytes alone do not show it.

#include <floe/json/writer.hpp>

#include <doctest/doctest.h>

#include <simdjson.h>

#include <cstdint>
#include <string>
#include <utility>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace json_writer_test {

using namespace floe;

namespace {

constexpr json::writer_options refuse{.on_bad_utf8 = json::bad_utf8::refuse};
constexpr json::writer_options terminal{.escape_del_and_replacements = true};

// {"key":"value"} as SQS writes it; the check must pass.
std::string one_string(std::string_view key, std::string_view value) {
  std::string out;
  json::writer w(out, refuse);
  w.begin_object();
  w.key(key);
  w.value(value);
  w.end_object();
  REQUIRE(w.check().has_value());
  return out;
}

std::string read_back(std::string const& doc, char const* key) {
  simdjson::dom::parser p;
  simdjson::dom::element e;
  REQUIRE(p.parse(doc).get(e) == simdjson::SUCCESS);
  std::string_view v;
  REQUIRE(e[key].get(v) == simdjson::SUCCESS);
  return std::string(v);
}

std::string refusal(json::writer const& w) {
  auto ok = w.check();
  REQUIRE(ok.has_error());
  CHECK(ok.error().code == errc::invalid_argument);
  return ok.error().diag.message;
}

// What check() says after `steps` (which must misuse the writer or give it
// text it refuses).
template <class Steps>
std::string failure(json::writer_options options, Steps steps) {
  std::string out;
  json::writer w(out, options);
  steps(w);
  return refusal(w);
}

}  // namespace

// ---- structure -------------------------------------------------------------

TEST_CASE("members and elements are separated by commas at every depth") {
  std::string out;
  json::writer w(out, refuse);
  w.begin_object();
  w.key("a");
  w.value(1);
  w.key("b");
  w.begin_array();
  w.value(true);
  w.value(false);
  w.value("x");
  w.begin_object();
  w.end_object();
  w.end_array();
  w.key("c");
  w.begin_object();
  w.key("d");
  w.value(std::int64_t{-9223372036854775807LL - 1});
  w.end_object();
  w.key("e");
  w.begin_array();
  w.end_array();
  w.end_object();
  REQUIRE(w.check().has_value());
  CHECK(out == R"({"a":1,"b":[true,false,"x",{}],"c":{"d":-9223372036854775808},"e":[]})");
}

TEST_CASE("integers signed and unsigned, booleans, null, and nested empties") {
  std::string out;
  json::writer w(out, terminal);
  w.begin_object();
  w.key("a");
  w.value(1);
  w.key("b");
  w.value(true);
  w.key("c");
  w.null();
  w.key("list");
  w.begin_array();
  w.value("x");
  w.begin_object();
  w.end_object();
  w.begin_array();
  w.end_array();
  w.value(-2);
  w.end_array();
  w.key("big");
  w.value(std::uint64_t{18446744073709551615ull});
  w.end_object();
  CHECK(out == R"({"a":1,"b":true,"c":null,"list":["x",{},[],-2],"big":18446744073709551615})");
  CHECK(w.check().has_value());
}

TEST_CASE("values at the top level get no comma: one writer, several documents") {
  std::string out;
  json::writer w(out);
  w.begin_object();
  w.end_object();
  out += '\n';
  w.begin_array();
  w.value(1);
  w.end_array();
  CHECK(out == "{}\n[1]");
}

// ---- strings -----------------------------------------------------------------

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

TEST_CASE("replacing: keys and values escaped alike, each bad byte written as U+FFFD") {
  std::string out;
  json::writer w(out);
  w.begin_object();
  w.key("a\"b");
  w.value("q\"\\/\n\r\t\b\f\x01\x1f \xc3\xa9\xe2\x98\x83\xf0\x9f\x98\x80");
  w.key("n");
  w.value(std::uint64_t{18446744073709551615ull});
  w.key("l");
  w.begin_array();
  w.value(true);
  w.null();
  w.begin_object();
  w.end_object();
  w.begin_array();
  w.end_array();
  w.value("");
  w.end_array();
  w.end_object();
  CHECK(out == "{\"a\\\"b\":\"q\\\"\\\\/\\n\\r\\t\\b\\f\\u0001\\u001f \xc3\xa9\xe2\x98\x83\xf0\x9f\x98\x80\",\"n\":18446744073709551615,"
               "\"l\":[true,null,{},[],\"\"]}");
  std::string bad;
  json::append_string(bad, "a\xff\xc3z\xed\xa0\x80");
  CHECK(bad == "\"a\xef\xbf\xbd\xef\xbf\xbdz\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"");
  CHECK(w.check().has_value());  // replacing is no failure
}

TEST_CASE("for a terminal: DEL and every replacement as escapes, valid UTF-8 kept in keys and values") {
  std::string ctl;
  for (int c = 0; c < 0x20; ++c) ctl += static_cast<char>(c);
  ctl += '\x7f';
  std::string out;
  json::writer e(out, terminal);
  e.begin_object();
  e.key("ключ\t日本語\x01");
  e.value(std::string_view("q\"b\\s/"));
  e.key(std::string_view("k\0z", 3));
  e.value(ctl);
  e.key("\xff\xc3(");
  e.value("caf\xc3\xa9 \xf0\x9f\x98\x80 \xed\xa0\x80");
  e.end_object();
  CHECK(out ==
        "{\"ключ\\t日本語\\u0001\":\"q\\\"b\\\\s/\","
        "\"k\\u0000z\":\"\\u0000\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\b\\t\\n\\u000b\\f\\r\\u000e\\u000f"
        "\\u0010\\u0011\\u0012\\u0013\\u0014\\u0015\\u0016\\u0017\\u0018\\u0019\\u001a\\u001b\\u001c\\u001d\\u001e"
        "\\u001f\\u007f\","
        "\"\\ufffd\\ufffd(\":\"caf\xc3\xa9 \xf0\x9f\x98\x80 \\ufffd\\ufffd\\ufffd\"}");
}

// ---- refusing ----------------------------------------------------------------

TEST_CASE("refusing: a value that is not UTF-8 is refused naming its member") {
  std::string out;
  json::writer w(out, refuse);
  w.begin_object();
  w.key("QueueUrl");
  w.value("ok");
  w.key("MessageBody");
  w.value("bad \xff byte");
  w.key("Later");
  w.value("\xfe");  // the first refusal is the one named
  w.end_object();
  CHECK(refusal(w) == "the value of MessageBody is not valid UTF-8");

  CHECK(failure(refuse, [](json::writer& temp) {  // a key that was a temporary is still named right
          temp.begin_object();
          temp.key(std::string("Message") + "Body");
          temp.value("\xfe");
          temp.end_object();
        }) == "the value of MessageBody is not valid UTF-8");
  CHECK(failure(refuse, [](json::writer& element) {
          element.begin_array();
          element.value("\xfe");
          element.end_array();
        }) == "a string value is not valid UTF-8");
  CHECK(failure(refuse, [](json::writer& k) {
          k.begin_object();
          k.key("\xc0\x80");
          k.value("v");
          k.end_object();
        }) == "a member name is not valid UTF-8");
}

TEST_CASE("the same text replaced is no failure: refusing is the caller's choice") {
  std::string out;
  json::writer w(out);
  w.begin_object();
  w.key("MessageBody");
  w.value("bad \xff byte");
  w.end_object();
  CHECK(w.check().has_value());
  CHECK(read_back(out, "MessageBody") == "bad \xef\xbf\xbd byte");
}

// ---- pairing -----------------------------------------------------------------

TEST_CASE("unpaired begin and end calls are reported") {
  std::string a, b, c;
  json::writer open(a);
  open.begin_object();
  CHECK(open.check().has_error());
  json::writer extra(b);
  extra.end_array();
  CHECK(extra.check().has_error());
  json::writer dangling(c);
  dangling.begin_object();
  dangling.key("k");
  dangling.end_object();
  CHECK(dangling.check().has_error());
  CHECK(failure({}, [](json::writer& w) {
          w.begin_object();
          w.end_array();
        }) == "JSON writer: end_array closes an object");
  CHECK(failure({}, [](json::writer& w) {
          w.begin_object();
          w.value(1);
          w.end_object();
        }) == "JSON writer: a value in an object without a key");
  CHECK(failure({}, [](json::writer& w) {
          w.begin_array();
          w.key("k");
          w.value(1);
          w.end_array();
        }) == "JSON writer: a key outside an object");
  CHECK(failure({}, [](json::writer& w) {
          w.begin_object();
          w.key("k");
          w.key("l");
          w.value(1);
          w.end_object();
        }) == "JSON writer: a key where a value is due");
}

TEST_CASE("pairing is checked past the depth the container kinds are kept for") {
  std::string out;
  json::writer w(out);
  for (int i = 0; i < 70; ++i) w.begin_array();
  w.begin_object();
  w.key("k");
  w.value(1);
  w.end_object();
  for (int i = 0; i < 70; ++i) w.end_array();
  CHECK(w.check().has_value());
  CHECK(out == std::string(70, '[') + "{\"k\":1}" + std::string(70, ']'));
}

// ---- splicing ----------------------------------------------------------------

TEST_CASE("values held apart are written by an elements writer and spliced in with their commas") {
  std::string held;
  json::writer h(held, json::writer_options{.array_elements = true});
  h.value("a");
  h.value(2);
  h.begin_object();
  h.end_object();
  CHECK(held == R"("a",2,{})");
  CHECK(h.check().has_value());

  std::string out;
  json::writer w(out);
  w.begin_object();
  w.key("objects");
  w.begin_array();
  w.value(1);
  w.raw_values(held);
  w.value(3);
  w.end_array();
  w.key("none");
  w.begin_array();
  w.raw_values("");
  w.end_array();
  w.key("first");
  w.begin_array();
  w.raw_values(held);
  w.end_array();
  w.end_object();
  CHECK(w.check().has_value());
  CHECK(out == R"({"objects":[1,"a",2,{},3],"none":[],"first":["a",2,{}]})");
}

TEST_CASE("splice_values: the values go out by another path between two parts of the document") {
  std::string out, sent;
  json::writer w(out);
  w.begin_object();
  w.key("deleted");
  w.begin_array();
  w.value("x");
  w.splice_values(true);
  sent += std::exchange(out, {}) + R"("y","z")";  // streamed, never in out
  w.end_array();
  w.key("n");
  w.value(3);
  w.end_object();
  sent += out;
  CHECK(sent == R"({"deleted":["x","y","z"],"n":3})");
  CHECK(w.check().has_value());

  std::string o2;
  json::writer empty(o2);
  empty.begin_array();
  empty.splice_values(false);
  empty.end_array();
  CHECK(o2 == "[]");
}

// ---- UTF-8 -------------------------------------------------------------------

TEST_CASE("UTF-8 validation refuses overlong forms, surrogates, values above U+10FFFF and cut sequences") {
  CHECK(json::valid_utf8(""));
  CHECK(json::valid_utf8("plain ascii"));
  CHECK(json::valid_utf8("\xc2\x80"));          // U+0080
  CHECK(json::valid_utf8("\xed\x9f\xbf"));      // U+D7FF
  CHECK(json::valid_utf8("\xee\x80\x80"));      // U+E000
  CHECK(json::valid_utf8("\xf4\x8f\xbf\xbf"));  // U+10FFFF
  CHECK_FALSE(json::valid_utf8("\xc0\x80"));          // overlong NUL
  CHECK_FALSE(json::valid_utf8("\xc0\xaf"));          // overlong
  CHECK_FALSE(json::valid_utf8("\xc1\xbf"));          // overlong
  CHECK_FALSE(json::valid_utf8("\xe0\x80\x80"));      // overlong 3-byte
  CHECK_FALSE(json::valid_utf8("\xe0\x80\xaf"));      // overlong 3-byte
  CHECK_FALSE(json::valid_utf8("\xf0\x80\x80\x80"));  // overlong 4-byte
  CHECK_FALSE(json::valid_utf8("\xed\xa0\x80"));      // U+D800, a surrogate
  CHECK_FALSE(json::valid_utf8("\xed\xbf\xbf"));      // U+DFFF
  CHECK_FALSE(json::valid_utf8("\xf4\x90\x80\x80"));  // U+110000
  CHECK_FALSE(json::valid_utf8("\xf5\x80\x80\x80"));
  CHECK_FALSE(json::valid_utf8("\x80"));              // a continuation byte first
  CHECK_FALSE(json::valid_utf8("\xe4\xb8"));          // cut short
  CHECK_FALSE(json::valid_utf8("\xe2\x98"));          // cut short
  CHECK_FALSE(json::valid_utf8("\xe4\x41\x96"));      // not a continuation byte
  CHECK_FALSE(json::valid_utf8("\xff"));
}

}  // namespace json_writer_test
