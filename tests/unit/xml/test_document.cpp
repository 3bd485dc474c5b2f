#include "test_data.hpp"

#include <floe/xml/document.hpp>

#include <libxml/globals.h>
#include <libxml/xmlerror.h>

#include <doctest/doctest.h>

#include <atomic>
#include <cstdio>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace xml_document_test {

namespace xml = floe::xml;
using floe::errc;

namespace {

std::string nested(unsigned depth) {
  std::string s;
  for (unsigned i = 0; i < depth; ++i) s += "<a>";
  s += "x";
  for (unsigned i = 0; i < depth; ++i) s += "</a>";
  return s;
}

// Encodes ASCII text as UTF-16LE with a byte-order mark.
std::string utf16le(std::string_view ascii) {
  std::string out = "\xFF\xFE";
  for (char c : ascii) {
    out += c;
    out += '\0';
  }
  return out;
}

int generic_error_calls = 0;
void count_generic_error(void*, char const*, ...) { ++generic_error_calls; }

}  // namespace

TEST_CASE("parse reads elements by local name, ignoring the default namespace") {
  auto doc = xml::parse(
      "<?xml version=\"1.0\"?><ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
      "<Name>b</Name><Contents><Key>a</Key><Size>1</Size></Contents><Other/>"
      "<Contents><Key>b&amp;c</Key><Size>22</Size></Contents></ListBucketResult>");
  REQUIRE(doc.has_value());
  auto root = doc.value().root();
  CHECK(root.name() == "ListBucketResult");
  CHECK(root.child_text("Name") == "b");
  std::vector<std::string> keys;
  for (auto c : root.children("Contents")) keys.push_back(c.child_text("Key"));
  CHECK(keys == std::vector<std::string>{"a", "b&c"});
  int all = 0;
  for (auto c : root.children()) {
    CHECK(!c.name().empty());
    ++all;
  }
  CHECK(all == 4);
  CHECK(root.child("Contents").next_sibling("Contents").child_text("Size") == "22");
  CHECK(root.children("Missing").empty());
}

TEST_CASE("prefixed namespaces are ignored too") {
  auto doc = xml::parse("<s3:Error xmlns:s3=\"urn:x\"><s3:Code>C</s3:Code></s3:Error>");
  REQUIRE(doc.has_value());
  CHECK(doc.value().root().name() == "Error");
  CHECK(doc.value().root().child_text("Code") == "C");
}

TEST_CASE("a null element answers every query with an empty value") {
  auto doc = xml::parse("<R><A>1</A></R>");
  REQUIRE(doc.has_value());
  auto missing = doc.value().root().child("B");
  CHECK_FALSE(missing);
  CHECK(missing.name().empty());
  CHECK(missing.text().empty());
  CHECK(missing.child("C").child("D").text().empty());
  CHECK(missing.children().empty());
  CHECK(missing.text_view() == std::string_view{});
  xml::document moved_from;
  CHECK_FALSE(moved_from.root());
}

TEST_CASE("text joins text and CDATA pieces; text_view is zero-copy for one piece") {
  auto doc = xml::parse("<R><A>one &lt;two&gt; &#x41;</A><B>x<![CDATA[<y>]]>z</B><C/><D><E>in</E>out</D></R>");
  REQUIRE(doc.has_value());
  auto r = doc.value().root();
  CHECK(r.child_text("A") == "one <two> A");
  auto a_view = r.child("A").text_view();
  REQUIRE(a_view.has_value());
  CHECK(*a_view == "one <two> A");
  CHECK(r.child_text("B") == "x<y>z");
  CHECK_FALSE(r.child("B").text_view().has_value());
  CHECK(r.child_text("C").empty());
  CHECK(r.child("C").text_view() == std::string_view{});
  CHECK(r.child_text("D") == "out");  // own text only, not the nested element's
}

TEST_CASE("documents move and free themselves") {
  auto a = xml::parse("<R>1</R>");
  REQUIRE(a.has_value());
  xml::document d = std::move(*a);
  CHECK(d.root().text() == "1");
  xml::document e;
  e = std::move(d);
  CHECK(e.root().text() == "1");
  CHECK_FALSE(d.root());  // NOLINT(bugprone-use-after-move): moved-from is empty by contract
}

TEST_CASE("leading whitespace before the XML declaration is skipped") {
  auto doc = xml::parse("\r\n \t\n<?xml version=\"1.0\"?><R>ok</R>");
  REQUIRE(doc.has_value());
  CHECK(doc.value().root().text() == "ok");
}

TEST_CASE("XXE: a SYSTEM entity is never resolved; the DOCTYPE is refused") {
  auto body = floe_test::our_data("xxe-file.xml");
  auto doc = xml::parse(body);
  REQUIRE(doc.has_error());
  CHECK(doc.error().code == errc::xml_doctype_refused);
  CHECK(doc.error().diag.message.find("root:") == std::string::npos);
}

TEST_CASE("XXE in UTF-16 (invisible to a byte scan) is refused by the parser callback") {
  auto body = utf16le(
      "<?xml version=\"1.0\" encoding=\"UTF-16\"?><!DOCTYPE E [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>"
      "<E>&x;</E>");
  auto doc = xml::parse(body);
  REQUIRE(doc.has_error());
  CHECK(doc.error().code == errc::xml_doctype_refused);
  // The same encoding without a DOCTYPE parses: the refusal is about the DOCTYPE.
  auto ok = xml::parse(utf16le("<?xml version=\"1.0\" encoding=\"UTF-16\"?><E>fine</E>"));
  REQUIRE(ok.has_value());
  CHECK(ok.value().root().text() == "fine");
}

TEST_CASE("external DTD and parameter entities are refused before anything is fetched") {
  for (std::string body : {
           std::string("<!DOCTYPE E SYSTEM \"http://127.0.0.1:1/evil.dtd\"><E/>"),
           std::string("<!DOCTYPE E PUBLIC \"-//x//y\" \"file:///etc/passwd\"><E/>"),
           std::string("<!DOCTYPE E [<!ENTITY % p SYSTEM \"file:///etc/passwd\"> %p;]><E/>"),
           std::string("  <!doctype html><html></html>"),
           std::string("<!-- c --><?pi x?><!DocType E><E/>"),
       }) {
    CAPTURE(body);
    auto doc = xml::parse(body);
    REQUIRE(doc.has_error());
    CHECK(doc.error().code == errc::xml_doctype_refused);
  }
}

TEST_CASE("the text <!DOCTYPE inside a comment or CDATA is not a DOCTYPE") {
  auto doc = xml::parse("<!-- <!DOCTYPE x> --><R><![CDATA[<!DOCTYPE y>]]></R>");
  REQUIRE(doc.has_value());
  CHECK(doc.value().root().text() == "<!DOCTYPE y>");
}

TEST_CASE("billion laughs: refused with its DOCTYPE; an undeclared entity is malformed") {
  auto doc = xml::parse(floe_test::our_data("billion-laughs.xml"));
  REQUIRE(doc.has_error());
  CHECK(doc.error().code == errc::xml_doctype_refused);
  auto undeclared = xml::parse("<Error><Code>&lol9;</Code></Error>");
  REQUIRE(undeclared.has_error());
  CHECK(undeclared.error().code == errc::malformed_reply);
}

TEST_CASE("size cap: 64 KiB by default, raisable") {
  std::string big = "<R>" + std::string(64 * 1024, 'x') + "</R>";
  auto doc = xml::parse(big);
  REQUIRE(doc.has_error());
  CHECK(doc.error().code == errc::reply_too_large);
  auto raised = xml::parse(big, {.max_bytes = 1 << 20});
  REQUIRE(raised.has_value());
  CHECK(raised.value().root().text().size() == 64 * 1024);
  std::string exact = "<R>" + std::string(64 * 1024 - 7, 'y') + "</R>";
  CHECK(exact.size() == 64 * 1024);
  CHECK(xml::parse(exact).has_value());
}

TEST_CASE("depth cap: deeper than max_depth is xml_too_deep") {
  CHECK(xml::parse(nested(32)).has_value());
  auto deep = xml::parse(nested(33));
  REQUIRE(deep.has_error());
  CHECK(deep.error().code == errc::xml_too_deep);
  CHECK(xml::parse(nested(5), {.max_depth = 5}).has_value());
  CHECK(xml::parse(nested(6), {.max_depth = 5}).error().code == errc::xml_too_deep);
  // Far beyond libxml2's own limit: still an error value, not a crash.
  auto very = xml::parse(nested(5000), {.max_bytes = 1 << 20, .max_depth = 100000});
  REQUIRE(very.has_error());
  CHECK(very.error().code == errc::malformed_reply);
}

TEST_CASE("malformed, truncated, empty and HTML bodies are error values with a reason") {
  for (std::string body : {std::string(), std::string("   \r\n"), std::string("<"), std::string("<R>"),
                           std::string("<R></S>"), std::string("not xml at all"), std::string("<R/><S/>"),
                           std::string("<?xml version=\"1.0\"?>"), std::string("\0\0\0\0", 4),
                           std::string("<R a='1' a='2'/>"), std::string("<R>&#0;</R>"),
                           std::string("<?xml version=\"1.0\" encoding=\"no-such-charset\"?><R/>"),
                           floe_test::our_data("truncated.xml"), floe_test::our_data("html-502.html")}) {
    CAPTURE(body);
    auto doc = xml::parse(body);
    REQUIRE(doc.has_error());
    CHECK(doc.error().code == errc::malformed_reply);
    CHECK_FALSE(doc.error().diag.message.empty());
  }
}

TEST_CASE("nothing is printed to stderr, whatever the input") {
  std::fflush(stderr);
  FILE* tmp = std::tmpfile();
  REQUIRE(tmp != nullptr);
  int const saved = ::dup(2);
  REQUIRE(saved >= 0);
  REQUIRE(::dup2(::fileno(tmp), 2) >= 0);
  for (std::string body : {std::string("<R></S>"), std::string("<R>&undefined;</R>"),
                           std::string("<a xmlns:p='x'><q:b/></a>"), std::string("<R attr=noquote/>"),
                           floe_test::our_data("xxe-file.xml"), floe_test::our_data("html-502.html"),
                           utf16le("<?xml version=\"1.0\" encoding=\"UTF-16\"?><!DOCTYPE E><E/>"),
                           std::string("<?xml version=\"1.0\" encoding=\"bogus\"?><R/>"), nested(300),
                           // invalid UTF-16 (a lone high surrogate): libxml2 reports the
                           // conversion failure without the parser context
                           std::string("\xFF\xFE<\0E\0>\0\x00\xD8 \0c\0 \0<\0/\0E\0>\0", 22),
                           std::string("<?xml version=\"1.0\" encoding=\"ISO-2022-JP\"?><E>\x1b$B\xff\xff</E>"),
                           std::string("<?xml version=\"1.0\" encoding=\"UTF-16\"?><E/>")}) {
    (void)xml::parse(body, {.max_bytes = 1 << 20, .max_depth = 1000});
  }
  std::fflush(stderr);
  ::dup2(saved, 2);
  ::close(saved);
  long const written = std::ftell(tmp);
  std::fclose(tmp);
  CHECK(written == 0);
}

TEST_CASE("the caller's own libxml2 error handlers are left as they were") {
  xmlGenericErrorFunc const mine = &count_generic_error;
  xmlSetGenericErrorFunc(nullptr, mine);
  (void)xml::parse(std::string("\xFF\xFE<\0E\0>\0\x00\xD8 \0c\0", 14));
  bool const restored = xmlGenericError == mine;
  CHECK(restored);
  CHECK(generic_error_calls == 0);  // and it was not called for our parse
  xmlSetGenericErrorFunc(nullptr, nullptr);
}

TEST_CASE("concurrent parses of different documents on several threads") {
  std::atomic<int> good{0};
  std::atomic<int> refused{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t, &good, &refused] {
      for (int i = 0; i < 300; ++i) {
        auto want = std::to_string(t * 1000 + i);
        auto doc = xml::parse("<R><V>" + want + "</V></R>");
        if (doc && doc.value().root().child_text("V") == want) ++good;
        auto bad = xml::parse("<!DOCTYPE R [<!ENTITY e 'x'>]><R>&e;</R>");
        if (!bad && bad.error().code == errc::xml_doctype_refused) ++refused;
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(good == 1200);
  CHECK(refused == 1200);
}

}  // namespace xml_document_test
