#pragma once
#include <floe/errors/reply_error.hpp>

#include <string>

namespace floe::errors {

namespace detail {

// Server text goes into log lines: no control characters, bounded length.
FLOE_DECL std::string log_safe(std::string_view s, std::size_t max = 512) {
  std::string out;
  out.reserve(s.size() < max ? s.size() : max);
  for (char c : s) {
    if (out.size() == max) {
      out += "...";
      break;
    }
    auto const u = static_cast<unsigned char>(c);
    out += (u < 0x20 || u == 0x7f) ? ' ' : c;
  }
  return out;
}

}  // namespace detail

FLOE_DECL floe::error make_error(classification const& c, unsigned status, xml::error_body const* body,
                                 reply_ids const& ids) {
  diagnostics d;
  d.http_status = status;
  d.operation = detail::log_safe(ids.operation);
  d.attempt = ids.attempt;
  d.request_id = detail::log_safe(ids.request_id, 128);
  d.host_id = detail::log_safe(ids.host_id, 256);
  d.resource = detail::log_safe(ids.resource);
  if (body != nullptr) {
    d.code = detail::log_safe(body->code, 128);
    d.message = detail::log_safe(body->message);
    if (d.request_id.empty()) d.request_id = detail::log_safe(body->request_id, 128);
    if (d.host_id.empty()) d.host_id = detail::log_safe(body->host_id, 256);
    if (d.resource.empty()) d.resource = detail::log_safe(body->resource);
  }
  return floe::error(make_error_code(c.outcome == kind::success ? errc::ok : to_errc(c.outcome)), std::move(d));
}

FLOE_DECL reply_report describe_reply(reply_facts facts, std::string_view body, reply_ids const& ids,
                                      xml::limits const& lim) {
  reply_report r;
  std::string unreadable;
  if (!facts.reply_lost && body.find_first_not_of(" \t\r\n") != std::string_view::npos) {
    auto parsed = xml::parse_error_body(body, lim);
    bool const ok_status = facts.status >= 200 && facts.status < 300;
    if (parsed) {
      r.body = std::move(*parsed);
      facts.code = r.body->code;
    } else if (!ok_status) {  // a 2xx body that is not an error document is the normal payload
      unreadable = "unreadable error body: " + parsed.error().diag.message;
    }
  }
  r.what = classify(facts);
  r.err = make_error(r.what, facts.reply_lost ? 0 : facts.status, r.body ? &*r.body : nullptr, ids);
  if (!unreadable.empty() && r.err.diag.message.empty()) {
    r.err.diag.message = detail::log_safe(unreadable);
  }
  if (facts.reply_lost && r.err.diag.message.empty()) r.err.diag.message = std::string(r.what.reason);
  return r;
}

}  // namespace floe::errors
