// The protocols' error decoders (service/protocol.hpp): S3's <Error>, the
// query protocol's <ErrorResponse>, the JSON protocol's __type and
// x-amzn-query-error, and a credential endpoint's bare status.
#include <floe/service/protocol.hpp>

#include <doctest/doctest.h>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace service_protocol_test {

using namespace floe::service;
using floe::errc;
using floe::errors::kind;

namespace {

floe::errors::reply_facts facts(unsigned status) {
  floe::errors::reply_facts f;
  f.status = status;
  f.method = "POST";
  return f;
}

}  // namespace

TEST_CASE("rest_xml: S3's <Error>, its request id and host id headers") {
  floe::http::fields h;
  h.set("x-amz-request-id", "TX1");
  h.set("x-amz-id-2", "HOST2");
  std::string const body =
      "<?xml version=\"1.0\"?><Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message>"
      "<Key>k</Key></Error>";
  floe::errors::reply_ids ids;
  ids.operation = "GetObject";
  ids.resource = "b/k";
  ids.attempt = 1;
  auto r = decode_reply(protocol::rest_xml, facts(404), h, body, ids);
  CHECK(r.what.outcome == kind::not_found);
  CHECK(r.err.code == errc::not_found);
  CHECK(r.err.diag.code == "NoSuchKey");
  CHECK(r.err.diag.request_id == "TX1");
  CHECK(r.err.diag.host_id == "HOST2");
  CHECK(r.err.diag.to_string() == "GetObject b/k: 404 NoSuchKey: The specified key does not exist. (request id TX1)");
}

TEST_CASE("rest_xml: a 200 carrying <Error> counts only where the operation may send one") {
  floe::http::fields h;
  std::string const body = "<Error><Code>InternalError</Code><Message>We encountered an internal error.</Message></Error>";
  CHECK(classify_reply(protocol::rest_xml, facts(200), h, body, true) == kind::transient);
  CHECK(classify_reply(protocol::rest_xml, facts(200), h, body, false) == kind::success);
  auto r = decode_reply(protocol::rest_xml, facts(200), h, body, {}, true);
  CHECK(r.err.code == errc::transient);
  CHECK(r.err.diag.code == "InternalError");
  // A payload that is not an error document stays a success.
  CHECK(classify_reply(protocol::rest_xml, facts(200), h, "<CompleteMultipartUploadResult/>", true) == kind::success);
}

TEST_CASE("query: STS's <ErrorResponse> and x-amzn-RequestId") {
  floe::http::fields h;
  h.set("x-amzn-RequestId", "c6104cbe-af31-11e0-8154-cbc7ccf896c7");
  std::string const body =
      "<ErrorResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\"><Error><Type>Sender</Type>"
      "<Code>ExpiredTokenException</Code><Message>Token expired</Message></Error>"
      "<RequestId>body-id</RequestId></ErrorResponse>";
  auto f = facts(400);
  f.is_credential_fetch = true;
  auto r = decode_reply(protocol::query, f, h, body, {});
  CHECK(r.err.diag.code == "ExpiredTokenException");
  CHECK(r.err.diag.request_id == "c6104cbe-af31-11e0-8154-cbc7ccf896c7");
  // A credential fetch's refusal is never stale credentials.
  CHECK(r.what.outcome != kind::stale_credentials);
  // Signed with credentials that went stale: it is.
  auto signed_call = facts(403);
  std::string const stale =
      "<ErrorResponse><Error><Type>Sender</Type><Code>InvalidClientTokenId</Code>"
      "<Message>The security token included in the request is invalid.</Message></Error></ErrorResponse>";
  CHECK(classify_reply(protocol::query, signed_call, h, stale) == kind::stale_credentials);
}

TEST_CASE("json: __type without its namespace, message or Message, the legacy code of x-amzn-query-error") {
  floe::http::fields h;
  h.set("x-amzn-RequestId", "66916324-67ca-54bb-a410-3f567a7a0571");
  h.set("x-amzn-query-error", "AWS.SimpleQueueService.NonExistentQueue;Sender");
  std::string const body =
      R"({"__type": "com.amazonaws.sqs#QueueDoesNotExist", "message": "The specified queue does not exist."})";
  floe::errors::reply_ids ids;
  ids.operation = "GetQueueUrl";
  ids.resource = "q1";
  auto r = decode_reply(protocol::json, facts(400), h, body, ids);
  CHECK(r.what.outcome == kind::not_found);
  CHECK(r.err.diag.code == "QueueDoesNotExist");
  CHECK(r.err.diag.message == "The specified queue does not exist.");
  CHECK(r.err.diag.request_id == "66916324-67ca-54bb-a410-3f567a7a0571");
  // Message with a capital M, and a stale token under the JSON name.
  std::string const upper = R"({"__type":"com.amazon.coral.service#UnrecognizedClientException","Message":"bad token"})";
  floe::http::fields none;
  auto u = decode_reply(protocol::json, facts(400), none, upper, {});
  CHECK(u.err.diag.code == "UnrecognizedClientException");
  CHECK(u.err.diag.message == "bad token");
  CHECK(u.what.outcome == kind::stale_credentials);
  // Only the header names the code: its legacy code is used.
  floe::http::fields only_header;
  only_header.set("x-amzn-query-error", "AWS.SimpleQueueService.NonExistentQueue;Sender");
  CHECK(decode_reply(protocol::json, facts(400), only_header, "", {}).what.outcome == kind::not_found);
  // Throttling under the JSON name.
  std::string const throttled = R"({"__type":"com.amazonaws.sqs#ThrottlingException","message":"slow down"})";
  CHECK(classify_reply(protocol::json, facts(400), none, throttled) == kind::throttled);
  // A 2xx body is the payload, never read as an error.
  CHECK(classify_reply(protocol::json, facts(200), none, R"({"__type":"x#Boom"})") == kind::success);
}

TEST_CASE("plain: a credential endpoint's status alone") {
  floe::http::fields h;
  auto f = facts(500);
  f.is_credential_fetch = true;
  CHECK(classify_reply(protocol::plain, f, h, "oops") == kind::transient);
  f.status = 401;
  CHECK(classify_reply(protocol::plain, f, h, "") == kind::denied);
  f.status = 404;
  CHECK(classify_reply(protocol::plain, f, h, "<html/>") == kind::not_found);
  f.status = 429;
  CHECK(classify_reply(protocol::plain, f, h, "") == kind::throttled);
  auto r = decode_reply(protocol::plain, f, h, "{\"not\": \"read\"}", {});
  CHECK(r.err.code == errc::throttled);
  CHECK(r.err.diag.code.empty());
}

TEST_CASE("a 304 to a conditional read is a success; to another request it is not") {
  floe::http::fields h;
  auto f = facts(304);
  f.method = "GET";
  f.is_conditional_read = true;
  CHECK(classify_reply(protocol::rest_xml, f, h, "") == kind::success);
  f.is_conditional_read = false;
  CHECK(classify_reply(protocol::rest_xml, f, h, "") == kind::client_error);
}

}  // namespace service_protocol_test
