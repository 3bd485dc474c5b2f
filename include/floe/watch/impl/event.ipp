#pragma once
#include <floe/json/writer.hpp>
#include <floe/ledger/sequencer.hpp>
#include <floe/watch/event.hpp>

#include <simdjson.h>

#include <string>

namespace floe::watch {

namespace detail {

// Longest values accepted, in bytes. S3 keys and version ids are at most
// 1024; the rest are generous bounds on what the stores send.
inline constexpr std::size_t max_key_bytes = 1024;
inline constexpr std::size_t max_encoded_key_bytes = 3 * max_key_bytes;
inline constexpr std::size_t max_bucket_bytes = 255;
inline constexpr std::size_t max_field_bytes = 1024;

inline error bad_event(std::string const& where, std::string const& why) {
  error e(errc::malformed_reply, where.empty() ? why : where + ": " + why);
  e.diag.operation = "ParseEvent";
  return e;
}

// A member that must be an object.
inline result<simdjson::dom::object> need_object(simdjson::dom::object o, char const* name, std::string const& where) {
  simdjson::dom::element e;
  if (o.at_key(name).get(e) != simdjson::SUCCESS || e.is_null()) return bad_event(where + name, "missing");
  simdjson::dom::object out;
  if (e.get(out) != simdjson::SUCCESS) return bad_event(where + name, "not an object");
  return out;
}

// A member that may be absent (or null): false then; an error when it is
// there but not a string, or longer than `max`.
inline result<bool> opt_string(simdjson::dom::object o, char const* name, std::string const& where, std::size_t max,
                               std::string_view& out) {
  simdjson::dom::element e;
  if (o.at_key(name).get(e) != simdjson::SUCCESS || e.is_null()) return false;
  if (e.get(out) != simdjson::SUCCESS) return bad_event(where + name, "not a string");
  if (out.size() > max) return bad_event(where + name, "longer than " + std::to_string(max) + " bytes");
  return true;
}

inline result<std::string_view> need_string(simdjson::dom::object o, char const* name, std::string const& where,
                                            std::size_t max) {
  std::string_view v;
  auto has = opt_string(o, name, where, max, v);
  if (!has) return has.error();
  if (!*has) return bad_event(where + name, "missing");
  if (v.empty()) return bad_event(where + name, "empty");
  return v;
}

inline result<std::optional<std::uint64_t>> opt_size(simdjson::dom::object o, std::string const& where) {
  simdjson::dom::element e;
  if (o.at_key("size").get(e) != simdjson::SUCCESS || e.is_null()) return std::optional<std::uint64_t>();
  std::uint64_t n = 0;
  if (e.get(n) != simdjson::SUCCESS) return bad_event(where + "size", "not a non-negative integer");
  return std::optional<std::uint64_t>(n);
}

// A short excerpt of an input value for a message: printable, bounded.
inline std::string excerpt(std::string_view v) {
  std::string out;
  for (char c : v.substr(0, 64)) out += static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f ? '?' : c;
  return out;
}

inline std::string strip_quotes(std::string_view s) {
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = s.substr(1, s.size() - 2);
  return std::string(s);
}

inline std::string version_of(std::string_view v) { return v == "null" ? std::string() : std::string(v); }

inline result<std::string> bucket_of(simdjson::dom::object bucket, std::string const& where) {
  auto name = need_string(bucket, "name", where, max_bucket_bytes);
  if (!name) return name.error();
  if (name->find('/') != std::string_view::npos) return bad_event(where + "name", "contains '/'");
  return std::string(*name);
}

inline result<bool> check_key(std::string const& key, std::string const& where) {
  if (key.empty()) return bad_event(where, "empty");
  if (key.size() > max_key_bytes) return bad_event(where, "longer than 1024 bytes");
  return true;
}

inline result<object_event> parse_record(simdjson::dom::element rec, std::string const& at) {
  simdjson::dom::object o;
  if (rec.get(o) != simdjson::SUCCESS) return bad_event(at, "not an object");
  std::string const w = at + ".";
  std::string_view source;
  auto has_source = opt_string(o, "eventSource", w, max_field_bytes, source);
  if (!has_source) return has_source.error();
  if (*has_source && source != "aws:s3") return bad_event(w + "eventSource", "not aws:s3");
  object_event ev;
  auto name = need_string(o, "eventName", w, 256);
  if (!name) return name.error();
  ev.name = std::string(*name);
  ev.kind = ev.name.rfind("ObjectCreated:", 0) == 0   ? event_kind::object_created
            : ev.name.rfind("ObjectRemoved:", 0) == 0 ? event_kind::object_removed
                                                      : event_kind::other;
  ev.delete_marker = ev.name == "ObjectRemoved:DeleteMarkerCreated";
  std::string_view v;
  if (auto r = opt_string(o, "eventTime", w, 64, v); !r)
    return r.error();
  else if (*r)
    ev.event_time = std::string(v);

  auto s3 = need_object(o, "s3", w);
  if (!s3) return s3.error();
  auto bucket = need_object(*s3, "bucket", w + "s3.");
  if (!bucket) return bucket.error();
  auto bname = bucket_of(*bucket, w + "s3.bucket.");
  if (!bname) return bname.error();
  ev.bucket = std::move(*bname);

  std::string const ow = w + "s3.object.";
  auto obj = need_object(*s3, "object", w + "s3.");
  if (!obj) return obj.error();
  auto enc = need_string(*obj, "key", ow, max_encoded_key_bytes);
  if (!enc) return enc.error();
  auto key = decode_event_key(*enc);
  if (!key) return bad_event(ow + "key", key.error().diag.message);
  if (auto r = check_key(*key, ow + "key"); !r) return r.error();
  ev.key = std::move(*key);
  auto size = opt_size(*obj, ow);
  if (!size) return size.error();
  ev.size = *size;
  if (auto r = opt_string(*obj, "eTag", ow, max_field_bytes, v); !r)
    return r.error();
  else if (*r)
    ev.etag = strip_quotes(v);
  if (auto r = opt_string(*obj, "versionId", ow, max_field_bytes, v); !r)
    return r.error();
  else if (*r)
    ev.version_id = version_of(v);
  if (auto r = opt_string(*obj, "sequencer", ow, 256, v); !r)
    return r.error();
  else if (*r) {
    auto seq = ledger::normalize_sequencer(v);
    if (!seq) return bad_event(ow + "sequencer", "not 1 to 64 hex digits");
    ev.sequencer = std::move(*seq);
  }
  return ev;
}

inline result<bool> parse_records(simdjson::dom::object top, event_limits const& limits, event_message& m) {
  simdjson::dom::array arr;
  if (top.at_key("Records").get(arr) != simdjson::SUCCESS) return bad_event("Records", "not an array");
  std::size_t i = 0;
  for (simdjson::dom::element rec : arr) {
    if (i >= limits.max_records) return bad_event("Records", "more than " + std::to_string(limits.max_records) + " records");
    auto ev = parse_record(rec, "Records[" + std::to_string(i) + "]");
    if (!ev) return ev.error();
    m.events.push_back(std::move(*ev));
    ++i;
  }
  if (i == 0) return bad_event("Records", "empty");
  return true;
}

inline result<bool> parse_test_event(simdjson::dom::object top, event_message& m) {
  std::string_view event;
  auto has = opt_string(top, "Event", "", 256, event);
  if (!has) return has.error();
  if (event != "s3:TestEvent") return bad_event("Event", "not s3:TestEvent");
  std::string_view bucket;
  if (auto r = opt_string(top, "Bucket", "", max_bucket_bytes, bucket); !r) return r.error();
  m.kind = message_kind::test_event;
  m.test_bucket = std::string(bucket);
  return true;
}

inline result<bool> parse_eventbridge(simdjson::dom::object top, event_message& m) {
  m.format = event_format::eventbridge;
  std::string_view source;
  auto has_source = opt_string(top, "source", "", 256, source);
  if (!has_source) return has_source.error();
  if (source != "aws.s3") return bad_event("source", "not aws.s3 (an EventBridge event from another source)");
  object_event ev;
  auto type = need_string(top, "detail-type", "", 256);
  if (!type) return type.error();
  ev.name = std::string(*type);
  ev.kind = ev.name == "Object Created"   ? event_kind::object_created
            : ev.name == "Object Deleted" ? event_kind::object_removed
                                          : event_kind::other;
  std::string_view v;
  if (auto r = opt_string(top, "time", "", 64, v); !r)
    return r.error();
  else if (*r)
    ev.event_time = std::string(v);
  auto detail = need_object(top, "detail", "");
  if (!detail) return detail.error();
  if (auto r = opt_string(*detail, "reason", "detail.", 256, v); !r)
    return r.error();
  else if (*r)
    ev.reason = std::string(v);
  if (auto r = opt_string(*detail, "deletion-type", "detail.", 256, v); !r)
    return r.error();
  else if (*r)
    ev.delete_marker = v == "Delete Marker Created";
  auto bucket = need_object(*detail, "bucket", "detail.");
  if (!bucket) return bucket.error();
  auto bname = bucket_of(*bucket, "detail.bucket.");
  if (!bname) return bname.error();
  ev.bucket = std::move(*bname);
  auto obj = need_object(*detail, "object", "detail.");
  if (!obj) return obj.error();
  auto key = need_string(*obj, "key", "detail.object.", max_key_bytes);
  if (!key) return key.error();
  ev.key = std::string(*key);  // not encoded in EventBridge events
  auto size = opt_size(*obj, "detail.object.");
  if (!size) return size.error();
  ev.size = *size;
  for (char const* name : {"etag", "eTag"}) {
    auto r = opt_string(*obj, name, "detail.object.", max_field_bytes, v);
    if (!r) return r.error();
    if (*r) {
      ev.etag = strip_quotes(v);
      break;
    }
  }
  if (auto r = opt_string(*obj, "version-id", "detail.object.", max_field_bytes, v); !r)
    return r.error();
  else if (*r)
    ev.version_id = version_of(v);
  if (auto r = opt_string(*obj, "sequencer", "detail.object.", 256, v); !r)
    return r.error();
  else if (*r) {
    auto seq = ledger::normalize_sequencer(v);
    if (!seq) return bad_event("detail.object.sequencer", "not 1 to 64 hex digits");
    ev.sequencer = std::move(*seq);
  }
  m.events.push_back(std::move(ev));
  return true;
}

// One document; `in_sns`: it is an SNS Message (no envelope inside it).
inline result<event_message> parse_document(std::string_view text, event_limits const& limits, bool in_sns) {
  simdjson::dom::parser parser;
  simdjson::padded_string padded(text.data(), text.size());
  simdjson::dom::element doc;
  std::string const what = in_sns ? "the SNS Message " : "the body ";
  if (auto err = parser.parse(padded).get(doc); err != simdjson::SUCCESS)
    return bad_event("", what + "is not JSON (" + simdjson::error_message(err) + ")");
  simdjson::dom::object top;
  if (doc.get(top) != simdjson::SUCCESS) return bad_event("", what + "is not a JSON object");
  event_message m;
  simdjson::dom::element probe;
  if (top.at_key("Records").get(probe) == simdjson::SUCCESS) {
    if (auto r = parse_records(top, limits, m); !r) return r.error();
    return m;
  }
  if (top.at_key("detail-type").get(probe) == simdjson::SUCCESS) {
    if (auto r = parse_eventbridge(top, m); !r) return r.error();
    return m;
  }
  if (top.at_key("Event").get(probe) == simdjson::SUCCESS) {
    if (auto r = parse_test_event(top, m); !r) return r.error();
    return m;
  }
  if (top.at_key("Type").get(probe) == simdjson::SUCCESS) {
    if (in_sns) return bad_event("", "an SNS envelope inside an SNS Message");
    std::string_view type;
    if (auto r = opt_string(top, "Type", "", 256, type); !r) return r.error();
    if (type != "Notification")
      return bad_event("Type", "an SNS message of Type \"" + excerpt(type) + "\", not a Notification");
    auto msg = need_string(top, "Message", "", limits.max_bytes);
    if (!msg) return msg.error();
    std::string_view id;
    if (auto r = opt_string(top, "MessageId", "", 256, id); !r) return r.error();
    std::string const inner(*msg), message_id(id);  // the parser is reused below
    auto in = parse_document(inner, limits, true);
    if (!in) return bad_event("Message", in.error().diag.message);
    in->sns_envelope = true;
    in->sns_message_id = message_id;
    return in;
  }
  return bad_event("", what + "is not an S3 event notification, an SNS Notification or an EventBridge event "
                             "(no Records, Type, detail-type or Event member)");
}

inline int hex_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace detail

FLOE_DECL result<std::string> decode_event_key(std::string_view encoded) {
  std::string out;
  out.reserve(encoded.size());
  for (std::size_t i = 0; i < encoded.size(); ++i) {
    char const c = encoded[i];
    if (c == '+') {
      out += ' ';
    } else if (c == '%') {
      if (encoded.size() - i < 3 || detail::hex_value(encoded[i + 1]) < 0 || detail::hex_value(encoded[i + 2]) < 0)
        return detail::bad_event("", "'%' at byte " + std::to_string(i) + " is not followed by two hex digits");
      out += static_cast<char>(detail::hex_value(encoded[i + 1]) * 16 + detail::hex_value(encoded[i + 2]));
      i += 2;
    } else {
      out += c;
    }
  }
  if (!json::valid_utf8(out)) return detail::bad_event("", "the decoded key is not UTF-8");
  return out;
}

FLOE_DECL result<event_message> parse_event_message(std::string_view body, event_limits const& limits) {
  if (body.size() > limits.max_bytes) {
    error e(errc::reply_too_large, "the message body is larger than " + std::to_string(limits.max_bytes) + " bytes");
    e.diag.operation = "ParseEvent";
    return e;
  }
  try {
    return detail::parse_document(body, limits, false);
  } catch (std::bad_alloc const&) {
    throw;
  } catch (std::exception const& ex) {  // simdjson reports through error codes; this is a last resort
    return detail::bad_event("", std::string("unreadable: ") + ex.what());
  }
}

FLOE_DECL bool asks_for_nothing(event_message const& m) noexcept {
  if (m.kind == message_kind::test_event) return true;
  for (auto const& e : m.events)
    if (wants_action(e)) return false;
  return true;
}

FLOE_DECL std::string_view to_string(event_format f) noexcept {
  return f == event_format::eventbridge ? "eventbridge" : "s3";
}

}  // namespace floe::watch
