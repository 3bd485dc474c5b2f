#pragma once
#include <floe/errors/json_error.hpp>

#include <simdjson.h>

#include <initializer_list>
#include <string>

namespace floe::errors {

namespace detail {

inline std::string_view trim_ws(std::string_view s) noexcept {
  auto const b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

// Members whose value could hand a secret to a log (the same words the XML
// error reader redacts).
inline bool json_member_sensitive(std::string_view name) noexcept {
  for (std::string_view w : {"signature", "token", "secret", "canonicalrequest", "credential", "password"}) {
    if (name.size() < w.size()) continue;
    for (std::size_t i = 0; i + w.size() <= name.size(); ++i) {
      bool eq = true;
      for (std::size_t k = 0; k < w.size() && eq; ++k) {
        char c = name[i + k];
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
        eq = c == w[k];
      }
      if (eq) return true;
    }
  }
  return false;
}

// "<code>;<Sender|Receiver>" -> (code, fault)
inline std::pair<std::string_view, std::string_view> split_query_error(std::string_view h) noexcept {
  h = trim_ws(h);
  auto const semi = h.find(';');
  if (semi == std::string_view::npos) return {h, {}};
  return {trim_ws(h.substr(0, semi)), trim_ws(h.substr(semi + 1))};
}

}  // namespace detail

FLOE_DECL std::string_view bare_error_code(std::string_view type) noexcept {
  auto const colon = type.find(':');
  if (colon != std::string_view::npos) type = type.substr(0, colon);
  auto const hash = type.rfind('#');
  if (hash != std::string_view::npos) type = type.substr(hash + 1);
  return detail::trim_ws(type);
}

FLOE_DECL result<xml::error_body> parse_json_error(std::string_view body, json_error_headers const& headers,
                                                   std::size_t max_bytes) {
  if (body.size() > max_bytes) {
    return error(errc::reply_too_large, "JSON error body of " + std::to_string(body.size()) +
                                            " bytes is larger than the limit of " + std::to_string(max_bytes));
  }
  xml::error_body b;
  b.request_id.assign(detail::trim_ws(headers.request_id));
  auto const [legacy, fault] = detail::split_query_error(headers.query_error);
  if (fault == "Sender" || fault == "Receiver") b.type.assign(fault);
  if (!legacy.empty()) b.other.emplace_back("QueryErrorCode", std::string(legacy));

  std::string why;  // why the body gave no code
  if (detail::trim_ws(body).empty()) {
    why = "the body is empty";
  } else {
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    simdjson::dom::object obj;
    if (auto e = parser.parse(body.data(), body.size(), true).get(doc); e != simdjson::SUCCESS) {
      why = std::string("the body is not JSON (") + simdjson::error_message(e) + ")";
    } else if (doc.get(obj) != simdjson::SUCCESS) {
      why = "the body is not a JSON object";
    } else {
      std::string_view type, code_lower, code_upper, msg_lower, msg_upper;
      for (auto [key, value] : obj) {
        std::string_view text;
        bool const is_text = value.get(text) == simdjson::SUCCESS;
        // The first occurrence of a known member wins, as in the XML reader.
        std::string_view* slot = nullptr;
        if (key == "__type") slot = &type;
        else if (key == "code") slot = &code_lower;
        else if (key == "Code") slot = &code_upper;
        else if (key == "message") slot = &msg_lower;
        else if (key == "Message") slot = &msg_upper;
        if (slot != nullptr && is_text) {
          if (slot->empty()) *slot = text;
          continue;
        }
        if (b.other.size() >= 32) continue;  // enough for any diagnosis
        std::string value_text;
        if (detail::json_member_sensitive(key)) value_text = "(redacted)";
        else if (is_text) value_text.assign(text);
        else value_text = simdjson::minify(value);
        b.other.emplace_back(std::string(key), std::move(value_text));
      }
      std::string_view code = bare_error_code(type);
      if (code.empty()) code = bare_error_code(code_lower);
      if (code.empty()) code = bare_error_code(code_upper);
      b.code.assign(code);
      b.message.assign(!msg_lower.empty() ? msg_lower : msg_upper);
      if (code.empty()) why = "the body has no __type";
    }
  }
  if (b.code.empty()) b.code.assign(bare_error_code(headers.error_type));
  if (b.code.empty()) b.code.assign(bare_error_code(legacy));
  if (b.code.empty()) return error(errc::malformed_reply, "JSON error reply without a code: " + why);
  return b;
}

FLOE_DECL reply_report describe_json_reply(reply_facts facts, std::string_view body, json_error_headers const& headers,
                                           reply_ids const& ids) {
  reply_report r;
  std::string unreadable;
  bool const ok_status = facts.status >= 200 && facts.status < 300;
  if (!facts.reply_lost && facts.status != 0 && !ok_status) {
    bool const has_body = !detail::trim_ws(body).empty();
    if (has_body || !headers.query_error.empty() || !headers.error_type.empty()) {
      auto parsed = parse_json_error(body, headers);
      if (parsed) {
        r.body = std::move(*parsed);
        facts.code = r.body->code;
      } else {
        unreadable = "unreadable error body: " + parsed.error().diag.message;
      }
    }
  }
  r.what = classify(facts);
  reply_ids with_id = ids;
  if (with_id.request_id.empty()) with_id.request_id = headers.request_id;
  r.err = make_error(r.what, facts.reply_lost ? 0 : facts.status, r.body ? &*r.body : nullptr, with_id);
  if (!unreadable.empty() && r.err.diag.message.empty()) r.err.diag.message = detail::log_safe(unreadable);
  if ((facts.reply_lost || facts.status == 0) && r.err.diag.message.empty()) {
    r.err.diag.message = std::string(r.what.reason);
  }
  return r;
}

}  // namespace floe::errors
