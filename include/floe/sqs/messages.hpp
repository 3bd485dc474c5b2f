#pragma once
// The message operations of SQS, one message at a time: SendMessage,
// ReceiveMessage, DeleteMessage, ChangeMessageVisibility. Pure: parameters
// to request bodies, reply bodies to results (see sqs/request.hpp).
//
// Bodies are guarded both ways: build_request refuses a body SQS would
// alter or refuse (sqs/message_body.hpp), parse_reply of a send compares
// the MD5 SQS reports with the body sent, and parse_reply of a receive
// checks each message's body against its MD5OfBody.

#include <floe/config.hpp>
#include <floe/result.hpp>
#include <floe/sqs/message_body.hpp>
#include <floe/sqs/request.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace floe::sqs {

struct send_message_result {
  std::string message_id{};
  std::string md5_of_body{};      // checked against the body sent
  std::string sequence_number{};  // FIFO queues only
};

struct send_message_params {
  static constexpr std::string_view operation = "SendMessage";
  static constexpr std::string_view target = "AmazonSQS.SendMessage";
  using result_type = send_message_result;
  std::string queue_url{};
  std::string body{};  // check_message_body
  std::optional<std::chrono::seconds> delay{};  // 0..900 s; unset: the queue's DelaySeconds
  std::string message_group_id{};          // FIFO: required by SQS
  std::string message_deduplication_id{};  // FIFO without content-based deduplication
  std::size_t max_body_bytes = default_max_message_bytes;
};

/// Which field of ReceiveMessage names the system attributes asked for.
/// AttributeNames is the older name, deprecated by AWS but still read;
/// moto 5.2.1 reads both (their union); an emulator written before
/// MessageSystemAttributeNames existed knows only AttributeNames.
enum class attribute_names_field { modern, legacy, both };

/// A received message.
struct message {
  std::string message_id{};
  std::string receipt_handle{};  // what DeleteMessage / ChangeMessageVisibility need
  std::string body{};            // checked against md5_of_body
  std::string md5_of_body{};
  std::string md5_of_message_attributes{};  // as sent; message attributes are not read
  attribute_map attributes{};  // the system attributes asked for, as SQS gives them

  /// A system attribute; empty when absent.
  FLOE_DECL std::string_view attribute(std::string_view name) const noexcept;
  /// ApproximateReceiveCount (1 on the first receive).
  FLOE_DECL std::optional<std::uint64_t> receive_count() const noexcept;
  /// SentTimestamp and ApproximateFirstReceiveTimestamp (milliseconds since the epoch).
  FLOE_DECL std::optional<std::chrono::system_clock::time_point> sent_time() const noexcept;
  FLOE_DECL std::optional<std::chrono::system_clock::time_point> first_receive_time() const noexcept;
};

/// A received message that failed its check: the body does not match its
/// MD5OfBody. It is not deleted: it becomes visible again after its
/// visibility timeout (and goes to a dead-letter queue after the queue's
/// maxReceiveCount), so nothing is lost; the caller decides whether to say so.
struct rejected_message {
  std::string message_id{};
  std::string receipt_handle{};
  std::string reason{};
};

struct receive_message_result {
  std::vector<message> messages{};  // verified, in the order SQS gave them
  std::vector<rejected_message> rejected{};
};

struct receive_message_params {
  static constexpr std::string_view operation = "ReceiveMessage";
  static constexpr std::string_view target = "AmazonSQS.ReceiveMessage";
  using result_type = receive_message_result;
  std::string queue_url{};
  int max_messages = 1;  // 1..10
  /// 0..20 s: how long SQS waits for a message before answering empty
  /// (long polling). Unset: the queue's ReceiveMessageWaitTimeSeconds,
  /// which may be up to 20 s too (see longest_wait).
  std::optional<std::chrono::seconds> wait{};
  std::optional<std::chrono::seconds> visibility_timeout{};  // 0..43200 s; unset: the queue's
  /// Any of All, SenderId, SentTimestamp, ApproximateReceiveCount,
  /// ApproximateFirstReceiveTimestamp, SequenceNumber,
  /// MessageDeduplicationId, MessageGroupId, AWSTraceHeader,
  /// DeadLetterQueueSourceArn.
  std::vector<std::string> system_attribute_names{};
  attribute_names_field names_field = attribute_names_field::modern;
  std::string receive_request_attempt_id{};  // FIFO: makes a retried receive return the same messages
};

/// The longest a receive may wait on the server: its wait, or 20 s when
/// unset (the queue's own setting is unknown here). What
/// long_poll_read_timeout (sqs/queue.hpp) must outlast.
FLOE_DECL std::chrono::seconds longest_wait(receive_message_params const& p) noexcept;

struct delete_message_params {
  static constexpr std::string_view operation = "DeleteMessage";
  static constexpr std::string_view target = "AmazonSQS.DeleteMessage";
  using result_type = empty_result;
  std::string queue_url{};
  std::string receipt_handle{};
};

struct change_message_visibility_params {
  static constexpr std::string_view operation = "ChangeMessageVisibility";
  static constexpr std::string_view target = "AmazonSQS.ChangeMessageVisibility";
  using result_type = empty_result;
  std::string queue_url{};
  std::string receipt_handle{};
  std::chrono::seconds visibility_timeout{0};  // 0..43200 s; 0 makes the message visible at once
};

/// Errors: errc::invalid_argument naming the field (queue URL, body,
/// delay, group or deduplication id of more than 128 printable ASCII
/// characters, max_messages outside 1..10, wait above 20 s, visibility
/// timeout above 12 h, an unknown system attribute name, an empty or
/// control-character receipt handle).
FLOE_DECL result<request> build_request(send_message_params const& p);
FLOE_DECL result<request> build_request(receive_message_params const& p);
FLOE_DECL result<request> build_request(delete_message_params const& p);
FLOE_DECL result<request> build_request(change_message_visibility_params const& p);

/// Errors: errc::malformed_reply, errc::reply_too_large; for a send,
/// errc::checksum_mismatch when MD5OfMessageBody is not the MD5 of p.body
/// (the message was stored, perhaps altered: the message names both digests
/// and the message id).
FLOE_DECL result<send_message_result> parse_reply(send_message_params const& p, std::string_view body);
/// An empty body or `{}` is no message. A message whose body fails its MD5
/// goes to `rejected`; a message without MessageId, ReceiptHandle, Body or
/// MD5OfBody makes the whole reply malformed.
FLOE_DECL result<receive_message_result> parse_reply(receive_message_params const& p, std::string_view body);
FLOE_DECL result<empty_result> parse_reply(delete_message_params const& p, std::string_view body);
FLOE_DECL result<empty_result> parse_reply(change_message_visibility_params const& p, std::string_view body);

}  // namespace floe::sqs

#if defined(FLOE_HEADER_ONLY)
#include <floe/sqs/impl/messages.ipp>
#endif
