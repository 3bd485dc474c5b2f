// The encodings a reply may come in. Every libxml2 reads UTF-8, UTF-16 and
// ISO-8859-1 by itself; other encodings need iconv or ICU. The static floe's
// libxml2 has neither (subprojects/packagefiles/libxml2): there a reply in
// another encoding must be an error value naming the encoding, never a crash
// or a garbled text. The same tests run against both configurations.
#include <floe/xml/document.hpp>

#include <libxml/xmlversion.h>

#include <doctest/doctest.h>

#include <string>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace xml_encodings_test {

namespace xml = floe::xml;
using floe::errc;

namespace {

// ASCII text as UTF-16, little or big endian, with a byte-order mark.
std::string utf16(std::string_view ascii, bool big_endian) {
  std::string out = big_endian ? "\xFE\xFF" : "\xFF\xFE";
  for (char c : ascii) {
    if (big_endian) out += '\0';
    out += c;
    if (!big_endian) out += '\0';
  }
  return out;
}

std::string code_of(std::string_view body) {
  auto doc = xml::parse(body);
  REQUIRE(doc.has_value());
  return doc->root().child_text("Code");
}

}  // namespace

TEST_CASE("UTF-8, with and without a byte-order mark") {
  CHECK(code_of("<Error><Code>Caf\xC3\xA9</Code></Error>") == "Caf\xC3\xA9");
  CHECK(code_of("\xEF\xBB\xBF<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>Caf\xC3\xA9</Code></Error>") ==
        "Caf\xC3\xA9");
}

TEST_CASE("UTF-16, little and big endian") {
  for (bool be : {false, true}) {
    CAPTURE(be);
    CHECK(code_of(utf16("<?xml version=\"1.0\" encoding=\"UTF-16\"?><Error><Code>NoSuchKey</Code></Error>", be)) ==
          "NoSuchKey");
  }
}

TEST_CASE("ISO-8859-1 (also named ISO-Latin-1) becomes UTF-8") {
  CHECK(code_of("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><Error><Code>Caf\xE9</Code></Error>") ==
        "Caf\xC3\xA9");
  CHECK(code_of("<?xml version=\"1.0\" encoding=\"ISO-Latin-1\"?><Error><Code>\xFC</Code></Error>") == "\xC3\xBC");
  CHECK(code_of("<?xml version=\"1.0\" encoding=\"US-ASCII\"?><Error><Code>Plain</Code></Error>") == "Plain");
}

TEST_CASE("another encoding: read through iconv or ICU where present, else an error value naming it") {
  // KOI8-R 0xC1 0xC2 is Cyrillic "аб" (U+0430 U+0431).
  std::string const koi8 = "<?xml version=\"1.0\" encoding=\"KOI8-R\"?><Error><Code>\xC1\xC2</Code></Error>";
  auto doc = xml::parse(koi8);
#if defined(LIBXML_ICONV_ENABLED) || defined(LIBXML_ICU_ENABLED)
  REQUIRE(doc.has_value());
  CHECK(doc->root().child_text("Code") == "\xD0\xB0\xD0\xB1");
#else
  REQUIRE(doc.has_error());
  CHECK(doc.error().code == errc::malformed_reply);
  CHECK(doc.error().diag.message.find("KOI8-R") != std::string::npos);
#endif
}

}  // namespace xml_encodings_test
