#pragma once
// The checks and the writing the request builders of sqs/*.hpp share.
// Internal.

#include <floe/error.hpp>
#include <floe/json/writer.hpp>
#include <floe/result.hpp>
#include <floe/sqs/detail/text.hpp>
#include <floe/sqs/queue.hpp>
#include <floe/sqs/request.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace floe::sqs::detail {

// The string a request body is written into, a base of body_writer so that
// it exists before the writer that refers to it.
struct body_text {
  std::string text;
};

/// A request body and the writer that writes it. Text that is not valid
/// UTF-8 is refused, never replaced: the bytes SQS decodes must be exactly
/// the caller's.
class body_writer : private body_text, public json::writer {
 public:
  /// Reserves room for a body of about `bytes` bytes.
  explicit body_writer(std::size_t bytes)
      : json::writer(text, json::writer_options{.on_bad_utf8 = json::bad_utf8::refuse}) {
    text.reserve(bytes);
  }
  body_writer(body_writer const&) = delete;
  body_writer& operator=(body_writer const&) = delete;

  /// The document, or what the writer refused (the message names the
  /// member).
  result<std::string> finish() {
    if (auto ok = check(); !ok) return ok.error();
    return std::move(text);
  }
};

inline error invalid(std::string_view operation, std::string what) {
  return error(errc::invalid_argument, "SQS " + std::string(operation) + ": " + std::move(what));
}

/// The queue URL every operation but CreateQueue / GetQueueUrl carries.
inline result<void> check_url(std::string_view operation, std::string_view url) {
  if (auto ok = check_queue_url(url); !ok) return invalid(operation, ok.error().diag.message);
  return {};
}

/// Attribute names are words of ASCII letters and digits ("VisibilityTimeout",
/// "ApproximateReceiveCount"); a tag key may be more (checked by SQS).
inline result<void> check_attribute_name(std::string_view operation, std::string_view name, std::string_view what) {
  if (name.empty()) return invalid(operation, "an empty " + std::string(what) + " name");
  for (char c : name) {
    bool const ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!ok) {
      return invalid(operation, std::string(what) + " name '" + detail::shown(name) +
                                    "' may hold only letters and digits");
    }
  }
  return {};
}

/// A batch entry's Id: 1 to 80 characters of [A-Za-z0-9_-].
inline result<void> check_entry_id(std::string_view operation, std::string_view id) {
  if (id.empty()) return invalid(operation, "a batch entry has an empty Id");
  if (id.size() > max_batch_entry_id_length) {
    return invalid(operation, "batch entry Id '" + detail::shown(id) + "' is longer than 80 characters");
  }
  for (char c : id) {
    bool const ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    if (!ok) {
      return invalid(operation, "batch entry Id '" + detail::shown(id) +
                                    "' may hold only letters, digits, '_' and '-'");
    }
  }
  return {};
}

/// The batch's size, then each Id and their distinctness (ids are few: a
/// quadratic scan is the cheapest).
template <class Entries>
result<void> check_batch_ids(std::string_view operation, Entries const& entries) {
  if (entries.empty()) return invalid(operation, "the batch has no entries (1 to 10 are needed)");
  if (entries.size() > max_batch_entries) {
    return invalid(operation, "the batch has " + std::to_string(entries.size()) + " entries; SQS takes at most 10");
  }
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (auto ok = check_entry_id(operation, entries[i].id); !ok) return ok.error();
    for (std::size_t j = 0; j < i; ++j) {
      if (entries[j].id == entries[i].id) {
        return invalid(operation, "batch entry Id '" + entries[i].id + "' is used twice (Ids must be distinct)");
      }
    }
  }
  return {};
}

inline result<void> check_seconds(std::string_view operation, std::string_view what, std::chrono::seconds v,
                                  std::chrono::seconds max) {
  if (v.count() < 0 || v > max) {
    return invalid(operation, std::string(what) + " of " + std::to_string(v.count()) + " s is outside 0.." +
                                  std::to_string(max.count()) + " s");
  }
  return {};
}

/// MessageGroupId / MessageDeduplicationId: 1 to 128 of the printable ASCII
/// characters (letters, digits, punctuation).
inline result<void> check_fifo_id(std::string_view operation, std::string_view what, std::string_view v) {
  if (v.size() > 128) return invalid(operation, std::string(what) + " is longer than 128 characters");
  for (char c : v) {
    if (c < 0x21 || c > 0x7e) {
      return invalid(operation, std::string(what) + " '" + shown(v) +
                                    "' may hold only letters, digits and punctuation (printable ASCII, no space)");
    }
  }
  return {};
}

inline result<void> check_receipt(std::string_view operation, std::string_view handle, std::string_view what) {
  if (handle.empty()) return invalid(operation, "the " + std::string(what) + " is empty");
  for (char c : handle) {
    auto const u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) return invalid(operation, "the " + std::string(what) + " holds a control character");
  }
  return {};
}

/// Everything a message to send carries besides its body, checked.
inline result<void> check_send_options(std::string_view operation, std::string_view where,
                                       std::optional<std::chrono::seconds> delay, std::string_view group,
                                       std::string_view dedup) {
  std::string const prefix = where.empty() ? std::string() : std::string(where) + ": ";
  if (delay) {
    if (auto ok = check_seconds(operation, prefix + "DelaySeconds", *delay, max_delay); !ok) return ok.error();
  }
  if (auto ok = check_fifo_id(operation, prefix + "MessageGroupId", group); !ok) return ok.error();
  if (auto ok = check_fifo_id(operation, prefix + "MessageDeduplicationId", dedup); !ok) return ok.error();
  return {};
}

inline void write_send_options(json::writer& w, std::optional<std::chrono::seconds> delay, std::string_view group,
                               std::string_view dedup) {
  if (delay) {
    w.key("DelaySeconds");
    w.value(delay->count());
  }
  if (!group.empty()) {
    w.key("MessageGroupId");
    w.value(group);
  }
  if (!dedup.empty()) {
    w.key("MessageDeduplicationId");
    w.value(dedup);
  }
}

/// The writer's document as a request of operation P.
template <class P>
result<request> finish(body_writer& w) {
  auto body = w.finish();
  if (!body) return invalid(P::operation, body.error().diag.message);
  return request{P::operation, P::target, std::move(*body)};
}

inline void write_map(json::writer& w, std::string_view key, attribute_map const& m) {
  w.key(key);
  w.begin_object();
  for (auto const& [k, v] : m) {
    w.key(k);
    w.value(v);
  }
  w.end_object();
}

}  // namespace floe::sqs::detail
