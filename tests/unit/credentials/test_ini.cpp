#include <floe/credentials/ini.hpp>

#include <doctest/doctest.h>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace credentials_ini_test {

using namespace floe::credentials;

namespace {
ini_document parse_ok(std::string_view text) {
  auto r = parse_ini(text, "cfg");
  if (r.has_error()) FAIL("unexpected parse error: " << r.error().diag.message);
  return *r;
}
std::string parse_err(std::string_view text) {
  auto r = parse_ini(text, "/home/u/.aws/config");
  REQUIRE(r.has_error());
  CHECK(r.error().code == floe::errc::invalid_argument);
  return r.error().diag.message;
}
}  // namespace

TEST_CASE("ini: sections, settings with '=' or ':', keys lower-cased, values trimmed") {
  auto d = parse_ok("[default]\nAWS_Access_Key_ID = AKID \nregion:eu-west-1\nempty =\n");
  REQUIRE(d.sections.size() == 1);
  auto const& s = d.sections[0];
  CHECK(s.name == "default");
  CHECK(s.line == 1);
  REQUIRE(s.entries.size() == 3);
  CHECK(s.entries[0].key == "aws_access_key_id");
  CHECK(s.entries[0].value == "AKID");
  CHECK(s.entries[0].line == 2);
  CHECK(s.find("REGION")->value == "eu-west-1");
  CHECK(s.find("empty")->value.empty());
  CHECK(s.find("missing") == nullptr);
}

TEST_CASE("ini: comments are whole lines; there are no inline comments") {
  auto d = parse_ok("# top\n; also\n[default] ; after a header, ignored\n  # indented comment\na = v # not a comment\nb = x ;y\n");
  auto const& s = d.sections.at(0);
  CHECK(s.name == "default");
  CHECK(s.find("a")->value == "v # not a comment");
  CHECK(s.find("b")->value == "x ;y");
}

TEST_CASE("ini: section names are kept as written") {
  auto d = parse_ok("[ default ]\na=1\n[Default]\nb=2\n[a]b]\nc=3\n");
  REQUIRE(d.sections.size() == 3);
  CHECK(d.sections[0].name == " default ");
  CHECK(d.find("default") == nullptr);
  CHECK(d.find("Default") != nullptr);
  CHECK(d.sections[2].name == "a]b");
}

TEST_CASE("ini: nested sub-sections keep their keys' case") {
  auto d = parse_ok("[profile dev]\ns3 =\n  addressing_style = path\n\n  Endpoint_URL = http://h:9000/x?y=z\n  # c\nregion = r\n");
  auto const& s = d.sections.at(0);
  auto s3 = s.find("s3");
  REQUIRE(s3);
  CHECK(s3->is_nested());
  REQUIRE(s3->nested.size() == 2);
  CHECK(s3->find("addressing_style")->value == "path");
  CHECK(s3->find("addressing_style")->line == 3);
  CHECK(s3->find("Endpoint_URL")->value == "http://h:9000/x?y=z");
  CHECK(s3->find("endpoint_url") == nullptr);
  CHECK(s.find("region")->value == "r");
}

TEST_CASE("ini: an indented line continues a plain value, joined by a line break") {
  auto d = parse_ok("[default]\na = 1\n  b = 2\nc = 3\n");
  auto const& s = d.sections.at(0);
  CHECK(s.find("a")->value == "1\nb = 2");
  CHECK_FALSE(s.find("a")->is_nested());
  CHECK(s.find("b") == nullptr);
  CHECK(s.find("c")->value == "3");
}

TEST_CASE("ini: indented settings right after a header are ordinary settings") {
  auto d = parse_ok("[default]\n    a = 1\n    b = 2\n");
  CHECK(d.sections.at(0).find("a")->value == "1");
  CHECK(d.sections.at(0).find("b")->value == "2");
}

TEST_CASE("ini: CRLF, lone CR, a BOM, tabs and a missing final newline") {
  auto d = parse_ok("\xEF\xBB\xBF[default]\r\na\t=\t1\r\ns3 =\r\n\taddressing_style = virtual\r\n[x]\rb=2\rc=3");
  REQUIRE(d.sections.size() == 2);
  CHECK(d.sections[0].find("a")->value == "1");
  CHECK(d.sections[0].find("s3")->find("addressing_style")->value == "virtual");
  CHECK(d.sections[1].find("b")->value == "2");
  CHECK(d.sections[1].find("c")->value == "3");
  CHECK(d.sections[1].find("c")->line == 7);
}

TEST_CASE("ini: [DEFAULT] supplies settings to every section and is not a section") {
  auto d = parse_ok("[DEFAULT]\nregion = r\nx = 1\n[a]\nx = 2\n[b]\n");
  REQUIRE(d.sections.size() == 2);
  CHECK(d.find("DEFAULT") == nullptr);
  CHECK(d.find("a")->find("region")->value == "r");
  CHECK(d.find("a")->find("x")->value == "2");
  CHECK(d.find("b")->find("x")->value == "1");
}

TEST_CASE("ini: empty input and comment-only input are empty documents") {
  CHECK(parse_ok("").sections.empty());
  CHECK(parse_ok("\n\n# only\n   \n").sections.empty());
}

TEST_CASE("ini: errors name the file and line and never quote a value") {
  CHECK(parse_err("aws_secret_access_key = TOPSECRET\n[default]\n") ==
        "/home/u/.aws/config:1: setting before the first [section]");
  auto m = parse_err("[default]\nTOPSECRETGARBAGE\n");
  CHECK(m.rfind("/home/u/.aws/config:2: ", 0) == 0);
  CHECK(m.find("TOPSECRET") == std::string::npos);
  CHECK(parse_err("[default]\n= v\n").find(":2: setting with an empty key") != std::string::npos);
  CHECK(parse_err("[default]\n[]\n").find(":2:") != std::string::npos);
}

TEST_CASE("ini: a key or a section given twice is refused, as botocore refuses it") {
  auto m = parse_err("[default]\nregion = a\n\nREGION = b\n");
  CHECK(m == "/home/u/.aws/config:4: 'region' is set twice in [default] (first on line 2)");
  auto s = parse_err("[p]\na=1\n[q]\n[p]\nb=2\n");
  CHECK(s == "/home/u/.aws/config:4: section [p] appears twice (first on line 1)");
}

TEST_CASE("ini: a nested line without '=' is an error; a repeated nested key keeps the last") {
  CHECK(parse_err("[default]\ns3 =\n  addressing_style path\n").find(":3: line inside the nested setting 's3' has no '='") !=
        std::string::npos);
  auto d = parse_ok("[default]\ns3 =\n  k = 1\n  k = 2\n");
  auto s3 = d.sections.at(0).find("s3");
  REQUIRE(s3->nested.size() == 1);
  CHECK(s3->nested[0].value == "2");
}

TEST_CASE("ini: hostile bytes in names do not reach messages raw") {
  auto m = parse_err("[a\x1b[31m]\nk=1\n[a\x1b[31m]\n");
  CHECK(m.find('\x1b') == std::string::npos);
  CHECK(m.find("\\x1B") != std::string::npos);
}

TEST_CASE("ini: values may hold '=', ':' and unicode") {
  auto d = parse_ok("[default]\nk = a=b:c\nu = \xc3\xbc\xe2\x82\xac\n");
  CHECK(d.sections[0].find("k")->value == "a=b:c");
  CHECK(d.sections[0].find("u")->value == "\xc3\xbc\xe2\x82\xac");
}

}  // namespace credentials_ini_test
