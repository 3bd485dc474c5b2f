#pragma once
// A small JSON writer for request bodies (the JSON protocol of SQS): objects,
// arrays, strings, integers and booleans, written straight into one string.
//
//   sqs::json_writer w;
//   w.begin_object();
//   w.key("QueueUrl"); w.string(url);
//   w.key("MaxNumberOfMessages"); w.number(10);
//   w.end_object();
//   auto body = w.finish();   // result<std::string>
//
// Strings must be valid UTF-8: they are written as they are, with only `"`,
// `\` and the control characters below U+0020 escaped (so the bytes a
// server decodes are exactly the bytes given). A string that is not valid
// UTF-8 is never written altered: finish() then fails naming the key whose
// value it was. Commas and nesting are the writer's business; the caller's
// only duty is to pair begin/end and to give a key before each member.

#include <floe/config.hpp>
#include <floe/result.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace floe::sqs {

class json_writer {
 public:
  json_writer() = default;
  /// Reserves room for a body of about `bytes` bytes.
  explicit json_writer(std::size_t bytes) { out_.reserve(bytes); }

  FLOE_DECL void begin_object();
  FLOE_DECL void end_object();
  FLOE_DECL void begin_array();
  FLOE_DECL void end_array();
  /// The name of the next member of the current object.
  FLOE_DECL void key(std::string_view name);
  FLOE_DECL void string(std::string_view value);
  FLOE_DECL void number(std::int64_t value);
  FLOE_DECL void boolean(bool value);

  /// The document. Errors: errc::invalid_argument when a string (or key)
  /// was not valid UTF-8 (the message names the member), or when begin and
  /// end calls did not pair up (a bug in the caller).
  FLOE_DECL result<std::string> finish();

 private:
  FLOE_DECL void separate();
  FLOE_DECL void write_string(std::string_view s);

  std::string out_;
  // One entry per open container: whether it already holds a member.
  std::vector<bool> has_member_;
  bool after_key_ = false;
  bool broken_ = false;
  std::string failure_;  // the first thing that went wrong
  // Where the last key was written in out_, to name it in a message (the
  // caller's key may be gone by the time its value is written).
  std::size_t key_at_ = 0;
  std::size_t key_size_ = 0;
};

/// Whether `s` is well-formed UTF-8 (no overlong forms, no surrogates, no
/// code point above U+10FFFF).
FLOE_DECL bool is_valid_utf8(std::string_view s) noexcept;

}  // namespace floe::sqs

#if defined(FLOE_HEADER_ONLY)
#include <floe/sqs/impl/json_writer.ipp>
#endif
