#pragma once
// What every SQS operation shares on the wire (the JSON protocol, which
// SQS speaks since 2023 and moto 5.2.1 speaks too):
//
//   POST /                                  to the SQS endpoint of the region
//   X-Amz-Target: AmazonSQS.<Operation>
//   Content-Type: application/x-amz-json-1.0
//   {"QueueUrl": "...", ...}                the queue URL in the body
//
// A reply is a JSON object (`{}` when the operation returns nothing); an
// error is a 4xx/5xx whose body and headers errors/json_error.hpp decodes.
//
// Each operation is a `*_params` struct (its `operation` name and
// `result_type` as members) with two pure functions beside it:
//   result<request>          build_request(params)         checks, then writes the body
//   result<params::result_type> parse_reply(params, body)  reads a 2xx body
// so a client sends any of them the same way:
//   auto req = build_request(p);  ...send req.target / req.body...
//   auto r = parse_reply(p, reply_body);

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <string_view>

namespace floe::sqs {

inline constexpr std::string_view json_content_type = "application/x-amz-json-1.0";
inline constexpr std::string_view request_method = "POST";
inline constexpr std::string_view request_path = "/";
/// The service name in the SigV4 credential scope.
inline constexpr std::string_view signing_name = "sqs";

/// Limits SQS sets on requests, checked before anything is sent.
inline constexpr std::size_t max_batch_entries = 10;
inline constexpr std::size_t max_batch_entry_id_length = 80;
inline constexpr int max_receive_messages = 10;
inline constexpr std::chrono::seconds max_wait_time{20};
inline constexpr std::chrono::seconds max_visibility_timeout{43200};  // 12 hours
inline constexpr std::chrono::seconds max_delay{900};                 // 15 minutes
/// The largest reply body the parsers read (ten 1 MiB messages, escaped).
inline constexpr std::size_t max_reply_bytes = 64 * 1024 * 1024;

/// Queue attributes, tags and message system attributes: name -> value.
using attribute_map = std::map<std::string, std::string, std::less<>>;

/// One request, ready to sign and send.
struct request {
  std::string_view operation{};  // "SendMessage" (static storage)
  std::string_view target{};     // the X-Amz-Target value, "AmazonSQS.SendMessage" (static storage)
  std::string body{};            // the JSON document
};

/// The reply of an operation that returns nothing.
struct empty_result {};

/// One entry of a batch that did not succeed.
struct batch_failure {
  std::string id{};       // the entry's Id, as given
  std::string code{};     // SQS's code ("ReceiptHandleIsInvalid"), or floe's (below)
  std::string message{};
  bool sender_fault = false;  // SQS: the entry itself was wrong (retrying it as it is will not help)
  /// floe's own finding, not SQS's: the entry is listed as a success but
  /// the MD5 SQS gave does not match the body sent (code
  /// "MD5OfMessageBodyMismatch": the message is in the queue, perhaps
  /// altered), or the reply does not mention the entry at all (code
  /// "MissingFromReply": it may or may not have been done).
  bool client_detected = false;
};

}  // namespace floe::sqs
