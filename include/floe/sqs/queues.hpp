#pragma once
// The queue operations of SQS: CreateQueue, DeleteQueue, GetQueueUrl,
// GetQueueAttributes, SetQueueAttributes, PurgeQueue. Pure: parameters to
// request bodies, reply bodies to results (see sqs/request.hpp).
//
// build_request errors are errc::invalid_argument naming the field; the
// parse_reply errors are errc::malformed_reply (not JSON, a missing or
// repeated field, a field of the wrong type) and errc::reply_too_large.

#include <floe/config.hpp>
#include <floe/result.hpp>
#include <floe/sqs/queue.hpp>
#include <floe/sqs/request.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace floe::sqs {

struct create_queue_result {
  std::string queue_url{};
};

/// Creates a queue, or returns the existing one when its attributes are
/// the same (SQS answers QueueNameExists when they differ).
struct create_queue_params {
  static constexpr std::string_view operation = "CreateQueue";
  static constexpr std::string_view target = "AmazonSQS.CreateQueue";
  using result_type = create_queue_result;
  std::string queue_name{};  // check_queue_name; a FIFO queue's ends in .fifo
  attribute_map attributes{};  // e.g. {"VisibilityTimeout", "30"}, {"FifoQueue", "true"}
  attribute_map tags{};
};

struct delete_queue_params {
  static constexpr std::string_view operation = "DeleteQueue";
  static constexpr std::string_view target = "AmazonSQS.DeleteQueue";
  using result_type = empty_result;
  std::string queue_url{};
};

struct get_queue_url_result {
  std::string queue_url{};
};

/// The URL of a queue known by name (see sqs/queue.hpp).
struct get_queue_url_params {
  static constexpr std::string_view operation = "GetQueueUrl";
  static constexpr std::string_view target = "AmazonSQS.GetQueueUrl";
  using result_type = get_queue_url_result;
  std::string queue_name{};
  std::string owner_account_id{};  // another account's queue: its 12-digit id
};

struct get_queue_attributes_result {
  attribute_map attributes{};
  /// The value of one attribute; empty when the reply did not have it.
  std::string_view find(std::string_view name) const noexcept {
    auto it = attributes.find(name);
    return it == attributes.end() ? std::string_view() : std::string_view(it->second);
  }
};

struct get_queue_attributes_params {
  static constexpr std::string_view operation = "GetQueueAttributes";
  static constexpr std::string_view target = "AmazonSQS.GetQueueAttributes";
  using result_type = get_queue_attributes_result;
  std::string queue_url{};
  std::vector<std::string> attribute_names{};  // empty: {"All"}
};

struct set_queue_attributes_params {
  static constexpr std::string_view operation = "SetQueueAttributes";
  static constexpr std::string_view target = "AmazonSQS.SetQueueAttributes";
  using result_type = empty_result;
  std::string queue_url{};
  attribute_map attributes{};  // at least one
};

/// Deletes every message of the queue (SQS allows one purge per 60 s).
struct purge_queue_params {
  static constexpr std::string_view operation = "PurgeQueue";
  static constexpr std::string_view target = "AmazonSQS.PurgeQueue";
  using result_type = empty_result;
  std::string queue_url{};
};

/// The GetQueueUrl request that turns a QUEUE argument given by name
/// (sqs/queue.hpp) into its URL. Errors: errc::invalid_argument when the
/// argument is a URL already (nothing to look up) or its name is not valid.
FLOE_DECL result<request> queue_url_request(queue_ref const& queue);

FLOE_DECL result<request> build_request(create_queue_params const& p);
FLOE_DECL result<request> build_request(delete_queue_params const& p);
FLOE_DECL result<request> build_request(get_queue_url_params const& p);
FLOE_DECL result<request> build_request(get_queue_attributes_params const& p);
FLOE_DECL result<request> build_request(set_queue_attributes_params const& p);
FLOE_DECL result<request> build_request(purge_queue_params const& p);

FLOE_DECL result<create_queue_result> parse_reply(create_queue_params const& p, std::string_view body);
FLOE_DECL result<empty_result> parse_reply(delete_queue_params const& p, std::string_view body);
FLOE_DECL result<get_queue_url_result> parse_reply(get_queue_url_params const& p, std::string_view body);
/// An empty body or `{}` is a queue with none of the attributes asked for.
FLOE_DECL result<get_queue_attributes_result> parse_reply(get_queue_attributes_params const& p, std::string_view body);
FLOE_DECL result<empty_result> parse_reply(set_queue_attributes_params const& p, std::string_view body);
FLOE_DECL result<empty_result> parse_reply(purge_queue_params const& p, std::string_view body);

}  // namespace floe::sqs

#if defined(FLOE_HEADER_ONLY)
#include <floe/sqs/impl/queues.ipp>
#endif
