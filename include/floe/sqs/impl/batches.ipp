#pragma once
#include <floe/sqs/batches.hpp>

#include <floe/sqs/detail/reply_reader.hpp>
#include <floe/sqs/detail/request_writer.hpp>

namespace floe::sqs {

namespace detail {

inline std::string entry_name(std::string_view id) { return "entry '" + shown(id, 80) + "'"; }

/// Reads Successful and Failed, checking every Id against the request's
/// entries. `on_success(object, index, where)` returns the failure to
/// record instead (a bad MD5) or nothing.
template <class Entries, class OnSuccess>
result<std::vector<batch_failure>> read_batch(std::string_view op, std::string_view body, Entries const& entries,
                                              OnSuccess&& on_success) {
  simdjson::dom::parser parser;
  auto obj = parse_object(parser, body, op);
  if (!obj) return obj.error();
  std::vector<bool> seen(entries.size(), false);
  std::vector<batch_failure> failed;
  auto index_of = [&](std::string const& id, std::string const& where) -> result<std::size_t> {
    for (std::size_t i = 0; i < entries.size(); ++i) {
      if (entries[i].id != id) continue;
      if (seen[i]) return malformed(op, where + ": Id '" + shown(id, 80) + "' is listed twice");
      seen[i] = true;
      return i;
    }
    return malformed(op, where + ": Id '" + shown(id, 80) + "' is not an entry of the request");
  };
  auto list = [&](std::string_view name) -> result<std::optional<simdjson::dom::array>> {
    auto e = find_once(*obj, name, op);
    if (!e) return e.error();
    if (!*e) return std::optional<simdjson::dom::array>();  // absent: nothing listed
    simdjson::dom::array arr;
    if ((*e)->get(arr) != simdjson::SUCCESS) return malformed(op, std::string(name) + " is not an array");
    return std::optional<simdjson::dom::array>(arr);
  };

  auto ok_list = list("Successful");
  if (!ok_list) return ok_list.error();
  auto bad_list = list("Failed");
  if (!bad_list) return bad_list.error();

  auto successful = [&](simdjson::dom::element e, std::string const& where) -> result<void> {
    simdjson::dom::object item;
    if (e.get(item) != simdjson::SUCCESS) return malformed(op, where + " is not an object");
    std::string id;
    string_field fields[] = {{"Id", &id, true}};
    if (auto ok = read_strings(item, fields, op, where); !ok) return ok.error();
    auto i = index_of(id, where);
    if (!i) return i.error();
    auto f = on_success(item, *i, where);
    if (!f) return f.error();
    if (*f) failed.push_back(std::move(**f));
    return {};
  };
  auto unsuccessful = [&](simdjson::dom::element e, std::string const& where) -> result<void> {
    simdjson::dom::object item;
    if (e.get(item) != simdjson::SUCCESS) return malformed(op, where + " is not an object");
    batch_failure f;
    string_field fields[] = {{"Id", &f.id, true}, {"Code", &f.code, true}, {"Message", &f.message, false}};
    if (auto ok = read_strings(item, fields, op, where); !ok) return ok.error();
    if (auto i = index_of(f.id, where); !i) return i.error();
    auto flag = find_once(item, "SenderFault", op, where);
    if (!flag) return flag.error();
    if (*flag) {
      auto v = read_flag(**flag, op, where + ".SenderFault");
      if (!v) return v.error();
      f.sender_fault = *v;
    }
    failed.push_back(std::move(f));
    return {};
  };
  if (*ok_list) {
    std::size_t n = 0;
    for (auto e : **ok_list) {
      if (auto ok = successful(e, "Successful[" + std::to_string(n++) + "]"); !ok) return ok.error();
    }
  }
  if (*bad_list) {
    std::size_t n = 0;
    for (auto e : **bad_list) {
      if (auto ok = unsuccessful(e, "Failed[" + std::to_string(n++) + "]"); !ok) return ok.error();
    }
  }

  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (seen[i]) continue;
    batch_failure f;
    f.id = entries[i].id;
    f.code = "MissingFromReply";
    f.message = "the reply lists this entry neither as done nor as failed: it may or may not have been done";
    f.client_detected = true;
    failed.push_back(std::move(f));
  }
  return failed;
}

template <class P>
result<batch_result> read_id_batch(P const& p, std::string_view body) {
  batch_result r;
  auto failed = read_batch(P::operation, body, p.entries,
                           [&](simdjson::dom::object, std::size_t i, std::string const&)
                               -> result<std::optional<batch_failure>> {
                             r.successful.push_back(p.entries[i].id);
                             return std::optional<batch_failure>();
                           });
  if (!failed) return failed.error();
  r.failed = std::move(*failed);
  return r;
}

}  // namespace detail

FLOE_DECL result<request> build_request(send_message_batch_params const& p) {
  using P = send_message_batch_params;
  if (auto ok = detail::check_url(P::operation, p.queue_url); !ok) return ok.error();
  if (auto ok = detail::check_batch_ids(P::operation, p.entries); !ok) return ok.error();
  std::size_t const limit = p.max_body_bytes == 0 || p.max_body_bytes > service_max_message_bytes
                                ? service_max_message_bytes
                                : p.max_body_bytes;
  std::size_t total = 0;
  for (auto const& e : p.entries) {
    auto const name = detail::entry_name(e.id);
    if (auto ok = check_message_body(e.body, limit, name + " MessageBody"); !ok) {
      return detail::invalid(P::operation, ok.error().diag.message);
    }
    if (auto ok = detail::check_send_options(P::operation, name, e.delay, e.message_group_id,
                                             e.message_deduplication_id);
        !ok) {
      return ok.error();
    }
    total += e.body.size();
  }
  if (total > limit) {
    return detail::invalid(P::operation, "the bodies of the batch add up to " + std::to_string(total) +
                                             " bytes, more than the limit of " + std::to_string(limit) +
                                             " bytes for a whole batch");
  }
  detail::body_writer w(p.queue_url.size() + total + total / 8 + 64 * p.entries.size() + 32);
  w.begin_object();
  w.key("QueueUrl");
  w.value(p.queue_url);
  w.key("Entries");
  w.begin_array();
  for (auto const& e : p.entries) {
    w.begin_object();
    w.key("Id");
    w.value(e.id);
    w.key("MessageBody");
    w.value(e.body);
    detail::write_send_options(w, e.delay, e.message_group_id, e.message_deduplication_id);
    w.end_object();
  }
  w.end_array();
  w.end_object();
  return detail::finish<P>(w);
}

FLOE_DECL result<request> build_request(delete_message_batch_params const& p) {
  using P = delete_message_batch_params;
  if (auto ok = detail::check_url(P::operation, p.queue_url); !ok) return ok.error();
  if (auto ok = detail::check_batch_ids(P::operation, p.entries); !ok) return ok.error();
  std::size_t size = p.queue_url.size() + 32;
  for (auto const& e : p.entries) {
    if (auto ok = detail::check_receipt(P::operation, e.receipt_handle, detail::entry_name(e.id) + " receipt handle");
        !ok) {
      return ok.error();
    }
    size += e.id.size() + e.receipt_handle.size() + 32;
  }
  detail::body_writer w(size);
  w.begin_object();
  w.key("QueueUrl");
  w.value(p.queue_url);
  w.key("Entries");
  w.begin_array();
  for (auto const& e : p.entries) {
    w.begin_object();
    w.key("Id");
    w.value(e.id);
    w.key("ReceiptHandle");
    w.value(e.receipt_handle);
    w.end_object();
  }
  w.end_array();
  w.end_object();
  return detail::finish<P>(w);
}

FLOE_DECL result<request> build_request(change_message_visibility_batch_params const& p) {
  using P = change_message_visibility_batch_params;
  if (auto ok = detail::check_url(P::operation, p.queue_url); !ok) return ok.error();
  if (auto ok = detail::check_batch_ids(P::operation, p.entries); !ok) return ok.error();
  std::size_t size = p.queue_url.size() + 32;
  for (auto const& e : p.entries) {
    auto const name = detail::entry_name(e.id);
    if (auto ok = detail::check_receipt(P::operation, e.receipt_handle, name + " receipt handle"); !ok) {
      return ok.error();
    }
    if (auto ok = detail::check_seconds(P::operation, name + " VisibilityTimeout", e.visibility_timeout,
                                        max_visibility_timeout);
        !ok) {
      return ok.error();
    }
    size += e.id.size() + e.receipt_handle.size() + 64;
  }
  detail::body_writer w(size);
  w.begin_object();
  w.key("QueueUrl");
  w.value(p.queue_url);
  w.key("Entries");
  w.begin_array();
  for (auto const& e : p.entries) {
    w.begin_object();
    w.key("Id");
    w.value(e.id);
    w.key("ReceiptHandle");
    w.value(e.receipt_handle);
    w.key("VisibilityTimeout");
    w.value(e.visibility_timeout.count());
    w.end_object();
  }
  w.end_array();
  w.end_object();
  return detail::finish<P>(w);
}

FLOE_DECL result<send_message_batch_result> parse_reply(send_message_batch_params const& p, std::string_view body) {
  constexpr auto op = send_message_batch_params::operation;
  send_message_batch_result r;
  auto failed = detail::read_batch(
      op, body, p.entries,
      [&](simdjson::dom::object item, std::size_t i, std::string const& where) -> result<std::optional<batch_failure>> {
        sent_message s;
        std::string id;
        detail::string_field fields[] = {{"Id", &id, true},
                                         {"MessageId", &s.message_id, true},
                                         {"MD5OfMessageBody", &s.md5_of_body, true},
                                         {"SequenceNumber", &s.sequence_number, false}};
        if (auto ok = detail::read_strings(item, fields, op, where); !ok) return ok.error();
        s.id = p.entries[i].id;
        if (!md5_matches(s.md5_of_body, p.entries[i].body)) {
          batch_failure f;
          f.id = s.id;
          f.code = "MD5OfMessageBodyMismatch";
          f.message = "SQS reports MD5OfMessageBody " + detail::shown(s.md5_of_body, 64) + " for message " +
                      detail::shown(s.message_id, 128) + ", but the body sent has MD5 " + md5_hex(p.entries[i].body) +
                      ": the queue may hold it altered";
          f.client_detected = true;
          return std::optional<batch_failure>(std::move(f));
        }
        r.successful.push_back(std::move(s));
        return std::optional<batch_failure>();
      });
  if (!failed) return failed.error();
  r.failed = std::move(*failed);
  return r;
}

FLOE_DECL result<batch_result> parse_reply(delete_message_batch_params const& p, std::string_view body) {
  return detail::read_id_batch(p, body);
}

FLOE_DECL result<batch_result> parse_reply(change_message_visibility_batch_params const& p, std::string_view body) {
  return detail::read_id_batch(p, body);
}

}  // namespace floe::sqs
