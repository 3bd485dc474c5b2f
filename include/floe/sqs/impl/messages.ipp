#pragma once
#include <floe/sqs/messages.hpp>

#include <floe/sqs/detail/reply_reader.hpp>
#include <floe/sqs/detail/request_writer.hpp>

#include <charconv>

namespace floe::sqs {

namespace detail {

inline constexpr std::string_view system_attribute_names[] = {
    "All",         "SenderId",      "SentTimestamp",          "ApproximateReceiveCount", "ApproximateFirstReceiveTimestamp",
    "SequenceNumber", "MessageDeduplicationId", "MessageGroupId", "AWSTraceHeader",       "DeadLetterQueueSourceArn"};

inline std::optional<std::uint64_t> decimal(std::string_view s) noexcept {
  std::uint64_t v = 0;
  auto const r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

inline std::optional<std::chrono::system_clock::time_point> millis(std::string_view s) noexcept {
  using std::chrono::milliseconds;
  auto const v = decimal(s);
  // A value the clock cannot hold (centuries away) is no timestamp SQS sends.
  constexpr auto most = std::chrono::duration_cast<milliseconds>(std::chrono::system_clock::duration::max()).count();
  if (!v || *v > static_cast<std::uint64_t>(most)) return std::nullopt;
  return std::chrono::system_clock::time_point(
      std::chrono::duration_cast<std::chrono::system_clock::duration>(std::chrono::milliseconds(*v)));
}

inline result<void> read_message(simdjson::dom::element e, std::size_t index, receive_message_result& out) {
  constexpr auto op = receive_message_params::operation;
  std::string const where = "Messages[" + std::to_string(index) + "]";
  simdjson::dom::object obj;
  if (e.get(obj) != simdjson::SUCCESS) return malformed(op, where + " is not an object");
  message m;
  string_field fields[] = {{"MessageId", &m.message_id, true},
                           {"ReceiptHandle", &m.receipt_handle, true},
                           {"MD5OfBody", &m.md5_of_body, true},
                           {"Body", &m.body, true},
                           {"MD5OfMessageAttributes", &m.md5_of_message_attributes, false}};
  if (auto ok = read_strings(obj, fields, op, where); !ok) return ok.error();
  if (m.receipt_handle.empty()) return malformed(op, where + ": ReceiptHandle is empty");
  auto attrs = find_once(obj, "Attributes", op, where);
  if (!attrs) return attrs.error();
  if (*attrs) {
    if (auto ok = read_string_map(**attrs, m.attributes, op, where + ".Attributes"); !ok) return ok.error();
  }
  if (!md5_matches(m.md5_of_body, m.body)) {
    out.rejected.push_back({std::move(m.message_id), std::move(m.receipt_handle),
                            "the body (" + std::to_string(m.body.size()) + " bytes) has MD5 " + md5_hex(m.body) +
                                ", not the MD5OfBody " + shown(m.md5_of_body, 64) + " SQS gave"});
    return {};
  }
  out.messages.push_back(std::move(m));
  return {};
}

}  // namespace detail

FLOE_DECL std::string_view message::attribute(std::string_view name) const noexcept {
  auto it = attributes.find(name);
  return it == attributes.end() ? std::string_view() : std::string_view(it->second);
}

FLOE_DECL std::optional<std::uint64_t> message::receive_count() const noexcept {
  return detail::decimal(attribute("ApproximateReceiveCount"));
}

FLOE_DECL std::optional<std::chrono::system_clock::time_point> message::sent_time() const noexcept {
  return detail::millis(attribute("SentTimestamp"));
}

FLOE_DECL std::optional<std::chrono::system_clock::time_point> message::first_receive_time() const noexcept {
  return detail::millis(attribute("ApproximateFirstReceiveTimestamp"));
}

FLOE_DECL std::chrono::seconds longest_wait(receive_message_params const& p) noexcept {
  return p.wait ? *p.wait : max_wait_time;
}

FLOE_DECL result<request> build_request(send_message_params const& p) {
  using P = send_message_params;
  if (auto ok = detail::check_url(P::operation, p.queue_url); !ok) return ok.error();
  if (auto ok = check_message_body(p.body, p.max_body_bytes, "MessageBody"); !ok) {
    return detail::invalid(P::operation, ok.error().diag.message);
  }
  if (auto ok = detail::check_send_options(P::operation, {}, p.delay, p.message_group_id, p.message_deduplication_id);
      !ok) {
    return ok.error();
  }
  detail::body_writer w(p.queue_url.size() + p.body.size() + p.body.size() / 8 + 64);
  w.begin_object();
  w.key("QueueUrl");
  w.value(p.queue_url);
  w.key("MessageBody");
  w.value(p.body);
  detail::write_send_options(w, p.delay, p.message_group_id, p.message_deduplication_id);
  w.end_object();
  return detail::finish<P>(w);
}

FLOE_DECL result<request> build_request(receive_message_params const& p) {
  using P = receive_message_params;
  if (auto ok = detail::check_url(P::operation, p.queue_url); !ok) return ok.error();
  if (p.max_messages < 1 || p.max_messages > max_receive_messages) {
    return detail::invalid(P::operation, "MaxNumberOfMessages of " + std::to_string(p.max_messages) +
                                             " is outside 1..10");
  }
  if (p.wait) {
    if (auto ok = detail::check_seconds(P::operation, "WaitTimeSeconds", *p.wait, max_wait_time); !ok) return ok.error();
  }
  if (p.visibility_timeout) {
    if (auto ok = detail::check_seconds(P::operation, "VisibilityTimeout", *p.visibility_timeout, max_visibility_timeout);
        !ok) {
      return ok.error();
    }
  }
  for (auto const& n : p.system_attribute_names) {
    bool known = false;
    for (auto k : detail::system_attribute_names) known = known || n == k;
    if (!known) {
      return detail::invalid(P::operation, "unknown message system attribute '" + detail::shown(n) +
                                               "' (known: All, SenderId, SentTimestamp, ApproximateReceiveCount, "
                                               "ApproximateFirstReceiveTimestamp, SequenceNumber, "
                                               "MessageDeduplicationId, MessageGroupId, AWSTraceHeader, "
                                               "DeadLetterQueueSourceArn)");
    }
  }
  if (!p.receive_request_attempt_id.empty()) {
    if (auto ok = detail::check_fifo_id(P::operation, "ReceiveRequestAttemptId", p.receive_request_attempt_id); !ok) {
      return ok.error();
    }
  }
  detail::body_writer w(p.queue_url.size() + 160);
  w.begin_object();
  w.key("QueueUrl");
  w.value(p.queue_url);
  w.key("MaxNumberOfMessages");
  w.value(p.max_messages);
  if (p.wait) {
    w.key("WaitTimeSeconds");
    w.value(p.wait->count());
  }
  if (p.visibility_timeout) {
    w.key("VisibilityTimeout");
    w.value(p.visibility_timeout->count());
  }
  auto names = [&](std::string_view field) {
    w.key(field);
    w.begin_array();
    for (auto const& n : p.system_attribute_names) w.value(n);
    w.end_array();
  };
  if (!p.system_attribute_names.empty()) {
    if (p.names_field != attribute_names_field::legacy) names("MessageSystemAttributeNames");
    if (p.names_field != attribute_names_field::modern) names("AttributeNames");
  }
  if (!p.receive_request_attempt_id.empty()) {
    w.key("ReceiveRequestAttemptId");
    w.value(p.receive_request_attempt_id);
  }
  w.end_object();
  return detail::finish<P>(w);
}

FLOE_DECL result<request> build_request(delete_message_params const& p) {
  using P = delete_message_params;
  if (auto ok = detail::check_url(P::operation, p.queue_url); !ok) return ok.error();
  if (auto ok = detail::check_receipt(P::operation, p.receipt_handle, "receipt handle"); !ok) return ok.error();
  detail::body_writer w(p.queue_url.size() + p.receipt_handle.size() + 48);
  w.begin_object();
  w.key("QueueUrl");
  w.value(p.queue_url);
  w.key("ReceiptHandle");
  w.value(p.receipt_handle);
  w.end_object();
  return detail::finish<P>(w);
}

FLOE_DECL result<request> build_request(change_message_visibility_params const& p) {
  using P = change_message_visibility_params;
  if (auto ok = detail::check_url(P::operation, p.queue_url); !ok) return ok.error();
  if (auto ok = detail::check_receipt(P::operation, p.receipt_handle, "receipt handle"); !ok) return ok.error();
  if (auto ok = detail::check_seconds(P::operation, "VisibilityTimeout", p.visibility_timeout, max_visibility_timeout);
      !ok) {
    return ok.error();
  }
  detail::body_writer w(p.queue_url.size() + p.receipt_handle.size() + 72);
  w.begin_object();
  w.key("QueueUrl");
  w.value(p.queue_url);
  w.key("ReceiptHandle");
  w.value(p.receipt_handle);
  w.key("VisibilityTimeout");
  w.value(p.visibility_timeout.count());
  w.end_object();
  return detail::finish<P>(w);
}

FLOE_DECL result<send_message_result> parse_reply(send_message_params const& p, std::string_view body) {
  constexpr auto op = send_message_params::operation;
  simdjson::dom::parser parser;
  auto obj = detail::parse_object(parser, body, op);
  if (!obj) return obj.error();
  send_message_result r;
  detail::string_field fields[] = {{"MessageId", &r.message_id, true},
                                   {"MD5OfMessageBody", &r.md5_of_body, true},
                                   {"SequenceNumber", &r.sequence_number, false}};
  if (auto ok = detail::read_strings(*obj, fields, op, {}); !ok) return ok.error();
  if (!md5_matches(r.md5_of_body, p.body)) {
    return error(errc::checksum_mismatch, "SQS SendMessage: SQS reports MD5OfMessageBody " +
                                              detail::shown(r.md5_of_body, 64) + " for message " +
                                              detail::shown(r.message_id, 128) + ", but the body sent has MD5 " +
                                              md5_hex(p.body) + ": the queue may hold it altered");
  }
  return r;
}

FLOE_DECL result<receive_message_result> parse_reply(receive_message_params const&, std::string_view body) {
  constexpr auto op = receive_message_params::operation;
  simdjson::dom::parser parser;
  auto obj = detail::parse_object(parser, body, op, true);
  if (!obj) return obj.error();
  receive_message_result r;
  auto list = detail::find_once(*obj, "Messages", op);
  if (!list) return list.error();
  if (!*list) return r;
  simdjson::dom::array arr;
  if ((*list)->get(arr) != simdjson::SUCCESS) return detail::malformed(op, "Messages is not an array");
  std::size_t i = 0;
  for (auto e : arr) {
    if (auto ok = detail::read_message(e, i++, r); !ok) return ok.error();
  }
  return r;
}

FLOE_DECL result<empty_result> parse_reply(delete_message_params const&, std::string_view body) {
  simdjson::dom::parser parser;
  auto obj = detail::parse_object(parser, body, delete_message_params::operation, true);
  if (!obj) return obj.error();
  return empty_result{};
}

FLOE_DECL result<empty_result> parse_reply(change_message_visibility_params const&, std::string_view body) {
  simdjson::dom::parser parser;
  auto obj = detail::parse_object(parser, body, change_message_visibility_params::operation, true);
  if (!obj) return obj.error();
  return empty_result{};
}

}  // namespace floe::sqs
