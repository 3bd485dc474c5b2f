#pragma once
// Reading SQS JSON replies with simdjson: the helpers the reply parsers of
// sqs/*.hpp share. Internal.
//
// Strictness: a member the parser knows must have its type and appear at
// most once (two "Body" members would make the message ambiguous); members
// it does not know are skipped, so new fields in a reply break nothing.

#include <floe/error.hpp>
#include <floe/result.hpp>
#include <floe/sqs/request.hpp>

#include <simdjson.h>

#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace floe::sqs::detail {

inline error malformed(std::string_view operation, std::string what) {
  return error(errc::malformed_reply, "SQS " + std::string(operation) + " reply: " + std::move(what));
}

/// Parses `body` into `parser` and returns its root object. An empty (or
/// all-whitespace) body is an empty object when `empty_ok`.
inline result<simdjson::dom::object> parse_object(simdjson::dom::parser& parser, std::string_view body,
                                                  std::string_view operation, bool empty_ok = false) {
  if (body.size() > max_reply_bytes) {
    return error(errc::reply_too_large, "SQS " + std::string(operation) + " reply: larger than " +
                                            std::to_string(max_reply_bytes) + " bytes");
  }
  if (body.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    if (!empty_ok) return malformed(operation, "the body is empty");
    body = "{}";
  }
  simdjson::dom::element doc;
  if (auto e = parser.parse(body.data(), body.size(), true).get(doc); e != simdjson::SUCCESS) {
    return malformed(operation, std::string("not JSON (") + simdjson::error_message(e) + ")");
  }
  simdjson::dom::object obj;
  if (doc.get(obj) != simdjson::SUCCESS) return malformed(operation, "not a JSON object");
  return obj;
}

/// One string member to read into `out`.
struct string_field {
  std::string_view name;
  std::string* out;
  bool required = false;
  bool seen = false;
};

/// Reads the members named in `fields` from `obj` (others are skipped).
/// `where` prefixes messages ("Messages[2]").
template <std::size_t N>
result<void> read_strings(simdjson::dom::object obj, string_field (&fields)[N], std::string_view operation,
                          std::string_view where) {
  auto prefix = [&] { return where.empty() ? std::string() : std::string(where) + ": "; };
  for (auto [key, value] : obj) {
    for (auto& f : fields) {
      if (key != f.name) continue;
      if (f.seen) return malformed(operation, prefix() + std::string(f.name) + " appears twice");
      f.seen = true;
      std::string_view v;
      if (value.get(v) != simdjson::SUCCESS) {
        return malformed(operation, prefix() + std::string(f.name) + " is not a string");
      }
      f.out->assign(v.data(), v.size());
    }
  }
  for (auto& f : fields) {
    if (f.required && !f.seen) return malformed(operation, prefix() + "no " + std::string(f.name));
  }
  return {};
}

/// The one member named `name` (at most once); nullopt when absent.
inline result<std::optional<simdjson::dom::element>> find_once(simdjson::dom::object obj, std::string_view name,
                                                               std::string_view operation, std::string_view where = {}) {
  std::optional<simdjson::dom::element> found;
  for (auto [key, value] : obj) {
    if (key != name) continue;
    if (found) {
      return malformed(operation, (where.empty() ? std::string() : std::string(where) + ": ") + std::string(name) +
                                      " appears twice");
    }
    found = value;
  }
  return found;
}

/// Reads an object of strings (Attributes) into `out`.
inline result<void> read_string_map(simdjson::dom::element e, std::map<std::string, std::string, std::less<>>& out,
                                    std::string_view operation, std::string_view what) {
  simdjson::dom::object obj;
  if (e.get(obj) != simdjson::SUCCESS) return malformed(operation, std::string(what) + " is not an object");
  for (auto [key, value] : obj) {
    std::string_view v;
    if (value.get(v) != simdjson::SUCCESS) {
      return malformed(operation, std::string(what) + "." + std::string(key) + " is not a string");
    }
    auto [it, inserted] = out.emplace(std::string(key), std::string(v));
    if (!inserted) return malformed(operation, std::string(what) + "." + std::string(key) + " appears twice");
  }
  return {};
}

/// SenderFault: a JSON boolean as AWS sends it, or the string "true" /
/// "false" (moto 5.2.1 sends a string in SendMessageBatch).
inline result<bool> read_flag(simdjson::dom::element e, std::string_view operation, std::string_view what) {
  bool b = false;
  if (e.get(b) == simdjson::SUCCESS) return b;
  std::string_view s;
  if (e.get(s) == simdjson::SUCCESS) {
    if (s == "true") return true;
    if (s == "false") return false;
  }
  return malformed(operation, std::string(what) + " is neither true nor false");
}

}  // namespace floe::sqs::detail
