#pragma once
// Error replies of the AWS JSON protocols (awsJson1_0 / awsJson1_1: SQS,
// and any other service that speaks them), decoded into the same
// xml::error_body the XML errors give, so the request driver treats both
// alike (describe_json_reply is describe_reply for these replies).
//
//   HTTP/1.1 400 Bad Request
//   x-amzn-RequestId: 66916324-67ca-54bb-a410-3f567a7a0571
//   x-amzn-query-error: AWS.SimpleQueueService.NonExistentQueue;Sender
//   Content-Type: application/x-amz-json-1.0
//
//   {"__type": "com.amazonaws.sqs#QueueDoesNotExist",
//    "message": "The specified queue does not exist."}
//
// gives code "QueueDoesNotExist", message "The specified queue does not
// exist.", type "Sender", request_id "66916324-...", and the legacy code of
// the query protocol kept as other["QueryErrorCode"] =
// "AWS.SimpleQueueService.NonExistentQueue".

#include <floe/config.hpp>
#include <floe/errors/reply_error.hpp>
#include <floe/result.hpp>
#include <floe/xml/error_body.hpp>

#include <cstddef>
#include <string_view>

namespace floe::errors {

/// The reply headers the decoding reads (views; empty when absent).
struct json_error_headers {
  std::string_view request_id{};   // x-amzn-RequestId
  std::string_view query_error{};  // x-amzn-query-error: "<legacy code>;<Sender|Receiver>"
  std::string_view error_type{};   // X-Amzn-Errortype: the code, when the body has none
};

/// The largest error body read.
inline constexpr std::size_t max_json_error_bytes = 1024 * 1024;

/// A code as the JSON protocols write it, reduced to the bare name:
/// "com.amazonaws.sqs#QueueDoesNotExist" -> "QueueDoesNotExist",
/// "ValidationException:http://internal.amazon.com/coral/..." ->
/// "ValidationException" (the part before the first ':', then the part
/// after the last '#', whitespace trimmed, as botocore reads it).
FLOE_DECL std::string_view bare_error_code(std::string_view type) noexcept;

/// Decodes an error reply. The fields of the result:
///   code        the body's __type (else its "code", else "Code"); else
///               the X-Amzn-Errortype header's; else the legacy code of
///               x-amzn-query-error; made bare in every case
///   message     the body's "message", else "Message" (servers use either,
///               moto 5.2.1 both)
///   request_id  the x-amzn-RequestId header
///   type        "Sender" or "Receiver", from x-amzn-query-error
///   other       ("QueryErrorCode", legacy code) when x-amzn-query-error
///               has one; then the body's other members, in order (text
///               as is, other JSON values minified), with values that could
///               hold a secret, a token or a signature "(redacted)"
/// A body that is empty or not JSON still gives a result when a header
/// names the code. Errors: errc::reply_too_large (body over `max_bytes`),
/// errc::malformed_reply (no code in the body or the headers; the message
/// says why: not JSON, not an object, no __type).
FLOE_DECL result<xml::error_body> parse_json_error(std::string_view body, json_error_headers const& headers,
                                                   std::size_t max_bytes = max_json_error_bytes);

/// describe_reply (errors/reply_error.hpp) for a JSON-protocol reply: a
/// non-2xx reply is decoded with parse_json_error (a 2xx body is the
/// operation's payload and never read here), its code goes into
/// facts.code, the reply is classified and the error built. A body that
/// cannot be decoded leaves the code empty (classified by status alone) and
/// says why in the message. The request id comes from `ids`, else from the
/// header. Never throws (except std::bad_alloc).
FLOE_DECL reply_report describe_json_reply(reply_facts facts, std::string_view body, json_error_headers const& headers,
                                           reply_ids const& ids);

}  // namespace floe::errors

#if defined(FLOE_HEADER_ONLY)
#include <floe/errors/impl/json_error.ipp>
#endif
