#pragma once
#include <floe/sqs/queues.hpp>

#include <floe/sqs/detail/reply_reader.hpp>
#include <floe/sqs/detail/request_writer.hpp>

namespace floe::sqs {

namespace detail {

template <class P>
result<request> queue_url_only(P const& p) {
  if (auto ok = check_url(P::operation, p.queue_url); !ok) return ok.error();
  detail::body_writer w(p.queue_url.size() + 16);
  w.begin_object();
  w.key("QueueUrl");
  w.value(p.queue_url);
  w.end_object();
  return finish<P>(w);
}

inline result<empty_result> empty_reply(std::string_view operation, std::string_view body) {
  simdjson::dom::parser parser;
  auto obj = parse_object(parser, body, operation, true);
  if (!obj) return obj.error();
  return empty_result{};
}

inline result<std::string> queue_url_reply(std::string_view operation, std::string_view body) {
  simdjson::dom::parser parser;
  auto obj = parse_object(parser, body, operation);
  if (!obj) return obj.error();
  std::string url;
  string_field fields[] = {{"QueueUrl", &url, true}};
  if (auto ok = read_strings(*obj, fields, operation, {}); !ok) return ok.error();
  if (url.empty()) return malformed(operation, "QueueUrl is empty");
  return url;
}

}  // namespace detail

FLOE_DECL result<request> build_request(create_queue_params const& p) {
  using P = create_queue_params;
  if (auto ok = check_queue_name(p.queue_name); !ok) return detail::invalid(P::operation, ok.error().diag.message);
  for (auto const& a : p.attributes) {
    if (auto ok = detail::check_attribute_name(P::operation, a.first, "attribute"); !ok) return ok.error();
  }
  for (auto const& t : p.tags) {
    if (t.first.empty()) return detail::invalid(P::operation, "an empty tag key");
  }
  detail::body_writer w(128);
  w.begin_object();
  w.key("QueueName");
  w.value(p.queue_name);
  if (!p.attributes.empty()) detail::write_map(w, "Attributes", p.attributes);
  if (!p.tags.empty()) detail::write_map(w, "tags", p.tags);
  w.end_object();
  return detail::finish<P>(w);
}

FLOE_DECL result<request> queue_url_request(queue_ref const& queue) {
  if (!queue.needs_lookup()) {
    return detail::invalid(get_queue_url_params::operation, "the queue is given by its URL; there is nothing to look up");
  }
  return build_request(get_queue_url_params{.queue_name = queue.name});
}

FLOE_DECL result<request> build_request(delete_queue_params const& p) { return detail::queue_url_only(p); }

FLOE_DECL result<request> build_request(get_queue_url_params const& p) {
  using P = get_queue_url_params;
  if (auto ok = check_queue_name(p.queue_name); !ok) return detail::invalid(P::operation, ok.error().diag.message);
  if (!p.owner_account_id.empty()) {
    bool digits = p.owner_account_id.size() == 12;
    for (char c : p.owner_account_id) digits = digits && c >= '0' && c <= '9';
    if (!digits) {
      return detail::invalid(P::operation, "queue owner account id '" + detail::shown(p.owner_account_id) +
                                               "' is not 12 digits");
    }
  }
  detail::body_writer w(64);
  w.begin_object();
  w.key("QueueName");
  w.value(p.queue_name);
  if (!p.owner_account_id.empty()) {
    w.key("QueueOwnerAWSAccountId");
    w.value(p.owner_account_id);
  }
  w.end_object();
  return detail::finish<P>(w);
}

FLOE_DECL result<request> build_request(get_queue_attributes_params const& p) {
  using P = get_queue_attributes_params;
  if (auto ok = detail::check_url(P::operation, p.queue_url); !ok) return ok.error();
  for (auto const& n : p.attribute_names) {
    if (auto ok = detail::check_attribute_name(P::operation, n, "attribute"); !ok) return ok.error();
  }
  detail::body_writer w(p.queue_url.size() + 64);
  w.begin_object();
  w.key("QueueUrl");
  w.value(p.queue_url);
  w.key("AttributeNames");
  w.begin_array();
  if (p.attribute_names.empty()) w.value("All");
  for (auto const& n : p.attribute_names) w.value(n);
  w.end_array();
  w.end_object();
  return detail::finish<P>(w);
}

FLOE_DECL result<request> build_request(set_queue_attributes_params const& p) {
  using P = set_queue_attributes_params;
  if (auto ok = detail::check_url(P::operation, p.queue_url); !ok) return ok.error();
  if (p.attributes.empty()) return detail::invalid(P::operation, "no attributes to set");
  for (auto const& a : p.attributes) {
    if (auto ok = detail::check_attribute_name(P::operation, a.first, "attribute"); !ok) return ok.error();
  }
  detail::body_writer w(p.queue_url.size() + 128);
  w.begin_object();
  w.key("QueueUrl");
  w.value(p.queue_url);
  detail::write_map(w, "Attributes", p.attributes);
  w.end_object();
  return detail::finish<P>(w);
}

FLOE_DECL result<request> build_request(purge_queue_params const& p) { return detail::queue_url_only(p); }

FLOE_DECL result<create_queue_result> parse_reply(create_queue_params const&, std::string_view body) {
  auto url = detail::queue_url_reply(create_queue_params::operation, body);
  if (!url) return url.error();
  return create_queue_result{std::move(*url)};
}

FLOE_DECL result<empty_result> parse_reply(delete_queue_params const&, std::string_view body) {
  return detail::empty_reply(delete_queue_params::operation, body);
}

FLOE_DECL result<get_queue_url_result> parse_reply(get_queue_url_params const&, std::string_view body) {
  auto url = detail::queue_url_reply(get_queue_url_params::operation, body);
  if (!url) return url.error();
  return get_queue_url_result{std::move(*url)};
}

FLOE_DECL result<get_queue_attributes_result> parse_reply(get_queue_attributes_params const&, std::string_view body) {
  constexpr auto op = get_queue_attributes_params::operation;
  simdjson::dom::parser parser;
  auto obj = detail::parse_object(parser, body, op, true);
  if (!obj) return obj.error();
  get_queue_attributes_result r;
  auto attrs = detail::find_once(*obj, "Attributes", op);
  if (!attrs) return attrs.error();
  if (*attrs) {
    if (auto ok = detail::read_string_map(**attrs, r.attributes, op, "Attributes"); !ok) return ok.error();
  }
  return r;
}

FLOE_DECL result<empty_result> parse_reply(set_queue_attributes_params const&, std::string_view body) {
  return detail::empty_reply(set_queue_attributes_params::operation, body);
}

FLOE_DECL result<empty_result> parse_reply(purge_queue_params const&, std::string_view body) {
  return detail::empty_reply(purge_queue_params::operation, body);
}

}  // namespace floe::sqs
