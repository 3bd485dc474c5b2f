// JSON-protocol error replies (errors/json_error.hpp) and how they are
// classified: the replies AWS documents (tests/data/sqs/aws/) and the ones
// moto 5.2.1 sends (tests/data/sqs/moto/).

#include "sqs_data.hpp"

#include <floe/errors/json_error.hpp>

#include <doctest/doctest.h>

#include <chrono>
#include <string>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace sqs_json_errors_test {

namespace errors = floe::errors;
using errors::kind;
using floe::errc;
using namespace std::chrono_literals;

namespace {

errors::json_error_headers headers_of(sqs_test::reply const& r) {
  // Views into r, which the caller keeps alive.
  errors::json_error_headers h;
  auto find = [&](char const* name) -> std::string_view {
    auto it = r.headers.find(name);
    return it == r.headers.end() ? std::string_view() : std::string_view(it->second);
  };
  h.request_id = find("x-amzn-requestid");
  h.query_error = find("x-amzn-query-error");
  h.error_type = find("x-amzn-errortype");
  return h;
}

errors::reply_facts facts(unsigned status, bool refreshable = false) {
  errors::reply_facts f;
  f.status = status;
  f.method = "POST";
  f.credentials_refreshable = refreshable;
  return f;
}

errors::reply_facts coded(unsigned status, std::string_view code) {
  auto f = facts(status);
  f.code = code;
  return f;
}

errors::reply_report describe(sqs_test::reply const& r, bool refreshable = false) {
  return errors::describe_json_reply(facts(r.status, refreshable), r.body, headers_of(r),
                                     {.operation = "ReceiveMessage", .resource = "MyQueue", .attempt = 1});
}

}  // namespace

TEST_CASE("a JSON error code is reduced to its bare name") {
  CHECK(errors::bare_error_code("com.amazonaws.sqs#QueueDoesNotExist") == "QueueDoesNotExist");
  CHECK(errors::bare_error_code("QueueDoesNotExist") == "QueueDoesNotExist");
  CHECK(errors::bare_error_code("ValidationException:http://internal.amazon.com/coral/com.amazon.x/") ==
        "ValidationException");
  CHECK(errors::bare_error_code("aws.protocoltests#FooError:http://x#y") == "FooError");
  CHECK(errors::bare_error_code(" com.amazon.coral.service#ExpiredTokenException ") == "ExpiredTokenException");
  CHECK(errors::bare_error_code("a#b#Last") == "Last");
  CHECK(errors::bare_error_code("").empty());
  CHECK(errors::bare_error_code("ns#").empty());
}

TEST_CASE("AWS's documented QueueDoesNotExist reply: code, message, request id, fault, legacy code; not_found") {
  auto const r = sqs_test::aws("queue-does-not-exist");
  auto const h = headers_of(r);
  auto b = errors::parse_json_error(r.body, h);
  REQUIRE(b.has_value());
  CHECK(b->code == "QueueDoesNotExist");
  CHECK(b->message == "The specified queue does not exist.");
  CHECK(b->request_id == "66916324-67ca-54bb-a410-3f567a7a0571");
  CHECK(b->type == "Sender");
  CHECK(b->find("QueryErrorCode") == "AWS.SimpleQueueService.NonExistentQueue");

  auto rep = describe(r);
  CHECK(rep.what.outcome == kind::not_found);
  CHECK(rep.err.code == errc::not_found);
  CHECK(rep.err.diag.http_status == 400);
  CHECK(rep.err.diag.code == "QueueDoesNotExist");
  CHECK(rep.err.diag.request_id == "66916324-67ca-54bb-a410-3f567a7a0571");
  CHECK(rep.err.diag.to_string() ==
        "ReceiveMessage MyQueue: 400 QueueDoesNotExist: The specified queue does not exist. "
        "(request id 66916324-67ca-54bb-a410-3f567a7a0571)");
}

TEST_CASE("each documented SQS error reply is classified as the issue says") {
  struct expect {
    char const* file;
    char const* code;
    kind plain;        // credentials that cannot be refreshed
    kind refreshable;  // web identity, IMDS, ...
  };
  expect const cases[] = {
      {"queue-does-not-exist", "QueueDoesNotExist", kind::not_found, kind::not_found},
      {"receipt-handle-is-invalid", "ReceiptHandleIsInvalid", kind::invalid_receipt, kind::invalid_receipt},
      {"message-not-inflight", "MessageNotInflight", kind::invalid_receipt, kind::invalid_receipt},
      {"request-throttled", "RequestThrottled", kind::throttled, kind::throttled},
      {"throttling-exception", "ThrottlingException", kind::throttled, kind::throttled},
      {"kms-throttled", "KmsThrottled", kind::throttled, kind::throttled},
      {"invalid-client-token-id", "InvalidClientTokenId", kind::stale_credentials, kind::stale_credentials},
      {"unrecognized-client", "UnrecognizedClientException", kind::stale_credentials, kind::stale_credentials},
      {"expired-token", "ExpiredTokenException", kind::stale_credentials, kind::stale_credentials},
      {"access-denied", "AccessDeniedException", kind::denied, kind::stale_credentials},
      {"403-no-body", "", kind::denied, kind::stale_credentials},
      {"over-limit", "OverLimit", kind::client_error, kind::client_error},
      {"internal-failure", "InternalFailure", kind::transient, kind::transient},
  };
  for (auto const& c : cases) {
    CAPTURE(c.file);
    auto const r = sqs_test::aws(c.file);
    auto plain = describe(r, false);
    auto refreshed = describe(r, true);
    CHECK(plain.err.diag.code == c.code);
    CHECK(plain.what.outcome == c.plain);
    CHECK(refreshed.what.outcome == c.refreshable);
    CHECK(plain.err.code == (c.plain == kind::success ? floe::make_error_code(errc::ok)
                                                      : floe::make_error_code(errors::to_errc(c.plain))));
    CHECK_FALSE(plain.err.diag.request_id.empty());  // from x-amzn-RequestId
  }
}

TEST_CASE("the stale-credential rules are S3's: never for a credential fetch, clock first for a bodiless 403") {
  auto const token = sqs_test::aws("invalid-client-token-id");
  auto f = facts(token.status, true);
  f.is_credential_fetch = true;
  CHECK(errors::describe_json_reply(f, token.body, headers_of(token), {}).what.outcome == kind::denied);

  auto const nobody = sqs_test::aws("403-no-body");
  auto skewed = facts(403, true);
  skewed.clock_skew = 900s;
  CHECK(errors::describe_json_reply(skewed, nobody.body, headers_of(nobody), {}).what.outcome == kind::clock_skew);

  auto const denied = sqs_test::aws("access-denied");
  auto rep = describe(denied, true);
  CHECK(rep.err.code == errc::stale_credentials);
  CHECK(rep.err.diag.message.find("is not authorized to perform: sqs:receivemessage") != std::string::npos);
  // The same refusal under 403 (as the query protocol sent it) is judged the same way.
  CHECK(errors::describe_json_reply(facts(403, true), denied.body, headers_of(denied), {}).what.outcome ==
        kind::stale_credentials);
  CHECK(errors::describe_json_reply(facts(403, false), denied.body, headers_of(denied), {}).what.outcome ==
        kind::denied);
}

TEST_CASE("moto 5.2.1's error replies decode and classify like AWS's") {
  struct expect {
    char const* capture;
    char const* code;
    char const* legacy;
    kind outcome;
  };
  expect const cases[] = {
      {"get-queue-url-missing", "QueueDoesNotExist", "AWS.SimpleQueueService.NonExistentQueue", kind::not_found},
      {"send-message-missing-queue", "QueueDoesNotExist", "AWS.SimpleQueueService.NonExistentQueue", kind::not_found},
      {"delete-queue-missing", "QueueDoesNotExist", "AWS.SimpleQueueService.NonExistentQueue", kind::not_found},
      {"delete-message-invalid", "ReceiptHandleIsInvalid", "ReceiptHandleIsInvalid", kind::invalid_receipt},
      {"change-message-visibility-invalid", "ReceiptHandleIsInvalid", "ReceiptHandleIsInvalid",
       kind::invalid_receipt},
      {"create-queue-exists-different", "QueueNameExists", "QueueAlreadyExists", kind::client_error},
      {"receive-message-too-many", "InvalidParameterValue", "InvalidParameterValue", kind::client_error},
      {"receive-message-wait-too-long", "InvalidParameterValue", "InvalidParameterValue", kind::client_error},
      {"send-message-batch-empty", "EmptyBatchRequest", "AWS.SimpleQueueService.EmptyBatchRequest",
       kind::client_error},
      {"send-message-batch-too-many", "TooManyEntriesInBatchRequest",
       "AWS.SimpleQueueService.TooManyEntriesInBatchRequest", kind::client_error},
      {"send-message-batch-duplicate-ids", "BatchEntryIdsNotDistinct",
       "AWS.SimpleQueueService.BatchEntryIdsNotDistinct", kind::client_error},
      {"delete-message-batch-empty", "EmptyBatchRequest", "AWS.SimpleQueueService.EmptyBatchRequest",
       kind::client_error},
  };
  for (auto const& c : cases) {
    CAPTURE(c.capture);
    auto const cap = sqs_test::moto(c.capture);
    auto b = errors::parse_json_error(cap.r.body, headers_of(cap.r));
    REQUIRE(b.has_value());
    CHECK(b->code == c.code);
    CHECK(b->find("QueryErrorCode") == c.legacy);
    CHECK(b->type == "Sender");
    CHECK_FALSE(b->message.empty());  // "message", or "Message" alone (InvalidParameterValue)
    CHECK_FALSE(b->request_id.empty());
    CHECK(describe(cap.r).what.outcome == c.outcome);
  }
  // moto sends both spellings; the members that are neither code nor message stay in `other`.
  auto const both = sqs_test::moto("get-queue-url-missing");
  auto b = errors::parse_json_error(both.r.body, headers_of(both.r));
  REQUIRE(b.has_value());
  CHECK(b->message == "The specified queue does not exist.");
  CHECK(b->other.size() == 1);  // QueryErrorCode only
}

TEST_CASE("moto's HTML 500 for an unknown operation is a transient error saying the body was unreadable") {
  auto const cap = sqs_test::moto("unknown-operation");
  REQUIRE(cap.r.status == 500);
  auto rep = describe(cap.r);
  CHECK(rep.what.outcome == kind::transient);
  CHECK_FALSE(rep.body.has_value());
  CHECK(rep.err.diag.message.find("unreadable error body: JSON error reply without a code: the body is not JSON") ==
        0);
}

TEST_CASE("where the code comes from when the body has no __type") {
  errors::json_error_headers none;
  auto lower = errors::parse_json_error(R"({"code":"ns#Lower","Message":"m"})", none);
  REQUIRE(lower.has_value());
  CHECK(lower->code == "Lower");
  CHECK(lower->message == "m");
  auto upper = errors::parse_json_error(R"({"Code":"Upper"})", none);
  REQUIRE(upper.has_value());
  CHECK(upper->code == "Upper");
  auto first = errors::parse_json_error(R"({"__type":"a#First","code":"Second","message":"one","Message":"two"})", none);
  REQUIRE(first.has_value());
  CHECK(first->code == "First");
  CHECK(first->message == "one");

  errors::json_error_headers typed{.error_type = "com.amazonaws.sqs#RequestThrottled"};
  auto from_header = errors::parse_json_error("", typed);
  REQUIRE(from_header.has_value());
  CHECK(from_header->code == "RequestThrottled");
  errors::json_error_headers legacy{.query_error = "AWS.SimpleQueueService.NonExistentQueue;Sender"};
  auto from_legacy = errors::parse_json_error("<html>gateway</html>", legacy);
  REQUIRE(from_legacy.has_value());
  CHECK(from_legacy->code == "AWS.SimpleQueueService.NonExistentQueue");
  CHECK(from_legacy->type == "Sender");
  CHECK(errors::classify(coded(400, from_legacy->code)).outcome == kind::not_found);

  auto no_code = errors::parse_json_error(R"({"message":"m"})", none);
  REQUIRE(no_code.has_error());
  CHECK(no_code.error().code == errc::malformed_reply);
  CHECK(no_code.error().diag.message == "JSON error reply without a code: the body has no __type");
  CHECK(errors::parse_json_error("[1,2]", none).error().diag.message.find("not a JSON object") != std::string::npos);
  CHECK(errors::parse_json_error("", none).error().diag.message.find("the body is empty") != std::string::npos);
  auto big = errors::parse_json_error(std::string(100, ' '), none, 10);
  REQUIRE(big.has_error());
  CHECK(big.error().code == errc::reply_too_large);
}

TEST_CASE("members that could hold a secret are redacted; other members are kept as text") {
  auto b = errors::parse_json_error(
      R"({"__type":"X","SessionToken":"FQoGZXIvYXdzE","Signature":"abc","Detail":{"a":1},"Retry":true,"Count":3})",
      {});
  REQUIRE(b.has_value());
  CHECK(b->find("SessionToken") == "(redacted)");
  CHECK(b->find("Signature") == "(redacted)");
  CHECK(b->find("Detail") == R"({"a":1})");
  CHECK(b->find("Retry") == "true");
  CHECK(b->find("Count") == "3");
}

TEST_CASE("a 2xx reply is never read as an error, whatever its body") {
  auto rep = errors::describe_json_reply(facts(200), R"({"__type":"X#Boom"})", {}, {});
  CHECK(rep.what.outcome == kind::success);
  CHECK_FALSE(rep.err.code);
  CHECK_FALSE(rep.body.has_value());
}

TEST_CASE("a lost reply is transient and says so") {
  auto f = facts(0);
  f.reply_lost = true;
  auto rep = errors::describe_json_reply(f, "", {}, {.operation = "SendMessage"});
  CHECK(rep.what.outcome == kind::transient);
  CHECK_FALSE(rep.err.diag.message.empty());
}

TEST_CASE("the receipt kind: its own errc, not retried, whatever the status") {
  CHECK(errors::to_errc(kind::invalid_receipt) == errc::invalid_receipt_handle);
  CHECK(errors::to_string(kind::invalid_receipt) == "invalid_receipt");
  CHECK_FALSE(errors::is_retryable(kind::invalid_receipt));
  CHECK(errors::classify(coded(404, "ReceiptHandleIsInvalid")).outcome == kind::invalid_receipt);
  CHECK(errors::classify(coded(400, "InvalidIdFormat")).outcome == kind::invalid_receipt);
  CHECK(errors::classify(coded(400, "QueueDoesNotExist")).outcome == kind::not_found);
  CHECK(floe::make_error_code(errc::invalid_receipt_handle).message() == "receipt handle invalid");
  CHECK(floe::make_error_code(errc::checksum_mismatch).message() == "checksum mismatch");
  // The values that were there before keep their numbers.
  CHECK(static_cast<int>(errc::body_not_replayable) == 21);
  CHECK(static_cast<int>(errc::checksum_mismatch) > static_cast<int>(errc::body_not_replayable));
  CHECK(static_cast<int>(errc::invalid_receipt_handle) > static_cast<int>(errc::body_not_replayable));
  CHECK(static_cast<int>(kind::redirect) == 12);
  CHECK(static_cast<int>(kind::invalid_receipt) > static_cast<int>(kind::redirect));
}

}  // namespace sqs_json_errors_test
