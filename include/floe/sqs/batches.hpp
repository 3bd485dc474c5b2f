#pragma once
// The batch operations of SQS: SendMessageBatch, DeleteMessageBatch,
// ChangeMessageVisibilityBatch. Pure: parameters to request bodies, reply
// bodies to results (see sqs/request.hpp).
//
// A batch holds 1 to 10 entries with distinct Ids, and its reply says
// entry by entry what happened: every entry ends up in exactly one of
// `successful` and `failed`, never all-or-nothing. An entry the reply lists
// as done but whose MD5 is wrong, or that the reply does not mention, is
// put in `failed` by floe (batch_failure::client_detected), so no entry is
// ever silently taken as done.

#include <floe/config.hpp>
#include <floe/result.hpp>
#include <floe/sqs/message_body.hpp>
#include <floe/sqs/request.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace floe::sqs {

struct send_message_batch_entry {
  std::string id{};    // 1..80 of [A-Za-z0-9_-], distinct within the batch
  std::string body{};  // check_message_body
  std::optional<std::chrono::seconds> delay{};  // 0..900 s
  std::string message_group_id{};
  std::string message_deduplication_id{};
};

struct sent_message {
  std::string id{};  // the entry's Id
  std::string message_id{};
  std::string md5_of_body{};  // checked against the entry's body
  std::string sequence_number{};
};

struct send_message_batch_result {
  std::vector<sent_message> successful{};
  std::vector<batch_failure> failed{};
};

struct send_message_batch_params {
  static constexpr std::string_view operation = "SendMessageBatch";
  static constexpr std::string_view target = "AmazonSQS.SendMessageBatch";
  using result_type = send_message_batch_result;
  std::string queue_url{};
  std::vector<send_message_batch_entry> entries{};
  /// The limit for each body and for all the bodies together (SQS counts
  /// the batch as one payload of at most its message size).
  std::size_t max_body_bytes = default_max_message_bytes;
};

/// The outcome of a batch whose successes carry nothing but their Id.
struct batch_result {
  std::vector<std::string> successful{};  // entry Ids
  std::vector<batch_failure> failed{};
};

struct delete_message_batch_entry {
  std::string id{};
  std::string receipt_handle{};
};

struct delete_message_batch_params {
  static constexpr std::string_view operation = "DeleteMessageBatch";
  static constexpr std::string_view target = "AmazonSQS.DeleteMessageBatch";
  using result_type = batch_result;
  std::string queue_url{};
  std::vector<delete_message_batch_entry> entries{};
};

struct change_message_visibility_batch_entry {
  std::string id{};
  std::string receipt_handle{};
  std::chrono::seconds visibility_timeout{0};  // 0..43200 s
};

struct change_message_visibility_batch_params {
  static constexpr std::string_view operation = "ChangeMessageVisibilityBatch";
  static constexpr std::string_view target = "AmazonSQS.ChangeMessageVisibilityBatch";
  using result_type = batch_result;
  std::string queue_url{};
  std::vector<change_message_visibility_batch_entry> entries{};
};

/// Errors: errc::invalid_argument naming the entry and what is wrong (no
/// entries or more than 10, an Id empty, too long, of other characters or
/// used twice, a body refused by check_message_body, bodies together above
/// the limit, a delay, a visibility timeout or a receipt handle as in
/// sqs/messages.hpp).
FLOE_DECL result<request> build_request(send_message_batch_params const& p);
FLOE_DECL result<request> build_request(delete_message_batch_params const& p);
FLOE_DECL result<request> build_request(change_message_visibility_batch_params const& p);

/// Errors: errc::malformed_reply (not JSON, Successful / Failed not arrays,
/// an entry without Id or Code, an Id the request did not have, an Id
/// listed twice), errc::reply_too_large.
FLOE_DECL result<send_message_batch_result> parse_reply(send_message_batch_params const& p, std::string_view body);
FLOE_DECL result<batch_result> parse_reply(delete_message_batch_params const& p, std::string_view body);
FLOE_DECL result<batch_result> parse_reply(change_message_visibility_batch_params const& p, std::string_view body);

}  // namespace floe::sqs

#if defined(FLOE_HEADER_ONLY)
#include <floe/sqs/impl/batches.ipp>
#endif
