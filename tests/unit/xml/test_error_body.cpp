#include "test_data.hpp"

#include <floe/xml/error_body.hpp>

#include <doctest/doctest.h>

#include <string>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace xml_error_body_test {

namespace xml = floe::xml;
using floe::errc;

TEST_CASE("S3 <Error>: every known field, unknown children kept in order") {
  auto b = xml::parse_error_body(floe_test::our_data("minio-invalid-access-key-id.xml"));
  REQUIRE(b.has_value());
  CHECK(b.value().code == "InvalidAccessKeyId");
  CHECK(b.value().message == "The Access Key Id you provided does not exist in our records.");
  CHECK(b.value().key == "watch/state.json");
  CHECK(b.value().bucket_name == "events");
  CHECK(b.value().resource == "/events/watch/state.json");
  CHECK(b.value().request_id == "17E8A2C4D5B6F701");
  CHECK(b.value().host_id == "dd9025bab4ad464b049177c95eb6ebf374d3b3fd1af9251148b658df7ac2e3e8");
  CHECK(b.value().type.empty());
  CHECK(b.value().other.empty());

  auto n = xml::parse_error_body(floe_test::our_data("s3-not-implemented.xml"));
  REQUIRE(n.has_value());
  CHECK(n.value().code == "NotImplemented");
  REQUIRE(n.value().other.size() == 1);
  CHECK(n.value().other[0].first == "Header");
  CHECK(n.value().other[0].second == "If-Match");
  CHECK(n.value().find("Header") == "If-Match");
  CHECK(n.value().find("Nope").empty());
}

TEST_CASE("STS/SQS <ErrorResponse>: Type, Code, Message and the sibling RequestId") {
  auto b = xml::parse_error_body(floe_test::our_data("sts-expired-token.xml"));
  REQUIRE(b.has_value());
  CHECK(b.value().type == "Sender");
  CHECK(b.value().code == "ExpiredToken");
  CHECK(b.value().message == "The security token included in the request is expired");
  CHECK(b.value().request_id == "4a1f7c6e-0d1b-4e9b-9a52-2b1f0c3d4e5f");

  auto q = xml::parse_error_body(floe_test::our_data("sqs-request-throttled.xml"));
  REQUIRE(q.has_value());
  CHECK(q.value().type == "Receiver");
  CHECK(q.value().code == "RequestThrottled");
  CHECK(q.value().request_id == "8d2c1b9a-7e6f-5d4c-3b2a-190817263544");
  REQUIRE(q.value().other.size() == 1);
  CHECK(q.value().other[0].first == "Detail");
}

TEST_CASE("EC2-style <Response><Errors><Error> with RequestID") {
  auto b = xml::parse_error_body(floe_test::our_data("ec2-style-response.xml"));
  REQUIRE(b.has_value());
  CHECK(b.value().code == "RequestLimitExceeded");
  CHECK(b.value().request_id == "a9b8c7d6-e5f4-4321-8765-0fedcba98765");
}

TEST_CASE("a 200 whose body is an <Error> after keep-alive whitespace") {
  auto body = floe_test::our_data("complete-multipart-200-internal-error.xml");
  REQUIRE(body.starts_with("\r\n"));
  auto b = xml::parse_error_body(body);
  REQUIRE(b.has_value());
  CHECK(b.value().code == "InternalError");
  auto doc = xml::parse(body);
  REQUIRE(doc.has_value());
  CHECK(xml::is_error_document(doc.value().root()));
  auto again = xml::read_error_body(doc.value().root());
  REQUIRE(again.has_value());
  CHECK(again.value().request_id == "3D4E5F6071829304");
}

TEST_CASE("prefixed namespace and escaped text") {
  auto b = xml::parse_error_body(floe_test::our_data("s3-prefixed-namespace.xml"));
  REQUIRE(b.has_value());
  CHECK(b.value().code == "AccessDenied");
  CHECK(b.value().message == "Access & more <denied>");
}

TEST_CASE("values that could carry signatures or session tokens are redacted") {
  auto b = xml::parse_error_body(floe_test::our_data("s3-signature-does-not-match.xml"));
  REQUIRE(b.has_value());
  CHECK(b.value().code == "SignatureDoesNotMatch");
  CHECK(b.value().find("AWSAccessKeyId") == "AKIDEXAMPLE");
  CHECK(b.value().find("StringToSign").starts_with("AWS4-HMAC-SHA256"));
  CHECK(b.value().find("SignatureProvided") == "(redacted)");
  CHECK(b.value().find("CanonicalRequest") == "(redacted)");
  CHECK(b.value().find("CanonicalRequestBytes") == "(redacted)");
  for (auto const& field : b.value().other) {
    std::string const& name = field.first;
    std::string const& value = field.second;
    CAPTURE(name);
    CHECK(value.find("SESSIONTOKENSECRET") == std::string::npos);
    CHECK(value.find("deadbeef") == std::string::npos);
  }
}

TEST_CASE("known fields are trimmed; unknown children are kept as sent") {
  auto b = xml::parse_error_body("<Error>\n  <Code>\n    NoSuchKey\n  </Code>\n  <Extra> x </Extra>\n</Error>");
  REQUIRE(b.has_value());
  CHECK(b.value().code == "NoSuchKey");
  CHECK(b.value().find("Extra") == " x ");
  auto blank = xml::parse_error_body("<Error><Code> \n </Code></Error>");
  REQUIRE(blank.has_error());
  CHECK(blank.error().code == errc::malformed_reply);
}

TEST_CASE("the first occurrence of a repeated field wins") {
  auto b = xml::parse_error_body("<Error><Code>A</Code><Code>B</Code><Message>m</Message></Error>");
  REQUIRE(b.has_value());
  CHECK(b.value().code == "A");
}

TEST_CASE("not an error document, or one without a Code, is malformed_reply with a reason") {
  struct bad_case {
    std::string body;
    std::string reason_part;
  };
  for (auto const& c : {
           bad_case{"<ListBucketResult><Name>b</Name></ListBucketResult>", "not an error document"},
           bad_case{"<Error><Message>no code</Message></Error>", "without a <Code>"},
           bad_case{"<ErrorResponse><RequestId>r</RequestId></ErrorResponse>", "without an <Error>"},
           bad_case{"<Error><Code></Code></Error>", "without a <Code>"},
       }) {
    std::string const& body = c.body;
    std::string const& part = c.reason_part;
    CAPTURE(body);
    auto b = xml::parse_error_body(body);
    REQUIRE(b.has_error());
    CHECK(b.error().code == errc::malformed_reply);
    CHECK(b.error().diag.message.find(part) != std::string::npos);
  }
}

TEST_CASE("hostile bodies give the parser's error values") {
  CHECK(xml::parse_error_body(floe_test::our_data("xxe-file.xml")).error().code == errc::xml_doctype_refused);
  CHECK(xml::parse_error_body(floe_test::our_data("billion-laughs.xml")).error().code ==
        errc::xml_doctype_refused);
  CHECK(xml::parse_error_body(floe_test::our_data("html-doctype-503.html")).error().code ==
        errc::xml_doctype_refused);
  CHECK(xml::parse_error_body(floe_test::our_data("html-502.html")).error().code == errc::malformed_reply);
  CHECK(xml::parse_error_body(floe_test::our_data("truncated.xml")).error().code == errc::malformed_reply);
  CHECK(xml::parse_error_body("").error().code == errc::malformed_reply);
  std::string huge = "<Error><Code>X</Code><Message>" + std::string(70000, 'm') + "</Message></Error>";
  CHECK(xml::parse_error_body(huge).error().code == errc::reply_too_large);
  std::string deep = "<Error><Code>X</Code>";
  for (int i = 0; i < 40; ++i) deep += "<d>";
  for (int i = 0; i < 40; ++i) deep += "</d>";
  deep += "</Error>";
  CHECK(xml::parse_error_body(deep).error().code == errc::xml_too_deep);
}

}  // namespace xml_error_body_test
