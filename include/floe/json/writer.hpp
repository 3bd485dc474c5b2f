#pragma once
// The one JSON writer: every JSON document floe makes (SQS request bodies,
// ledger objects, the CLI's --json output) is written by it, so commas,
// nesting and string escaping live in one place. It appends to the caller's
// std::string and allocates nothing of its own.
//
//   std::string out;
//   json::writer w(out);
//   w.begin_object();
//   w.key("n"); w.value(12);
//   w.key("name"); w.value("a \"b\"");
//   w.end_object();            // {"n":12,"name":"a \"b\""}
//   if (auto ok = w.check(); !ok) ...   // unpaired begin/end, refused text
//
// Strings are written as UTF-8: '"', '\\' and the control characters
// U+0000..U+001F are escaped (the short forms \b \f \n \r \t where JSON has
// them, else \u00XX), everything else is copied, so the bytes a reader
// decodes are exactly the bytes given. A byte sequence that is not valid
// UTF-8 cannot be represented in JSON; writer_options says what becomes of
// it: each bad byte written as U+FFFD (the output is always valid JSON), or
// the text refused (check() fails naming the member) for callers that must
// not alter data.
//
// Misuse (an end that matches no begin, a key where a value is due) never
// changes what is written; it is recorded, and check() reports the first.

#include <floe/config.hpp>
#include <floe/result.hpp>

#include <charconv>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace floe::json {

/// `s` is well-formed UTF-8 (no overlong forms, no surrogates, at most U+10FFFF).
FLOE_DECL bool valid_utf8(std::string_view s) noexcept;

/// What becomes of a string that is not valid UTF-8.
enum class bad_utf8 {
  replace,  ///< each byte that is not part of valid UTF-8 is written as U+FFFD
  refuse,   ///< check() fails naming the member (the document is not to be used)
};

struct writer_options {
  bad_utf8 on_bad_utf8 = bad_utf8::replace;
  /// DEL is written as \u007f and each U+FFFD put in for a bad byte as the
  /// escape \ufffd: output meant for a terminal carries no DEL, and a
  /// replaced byte shows as an escape rather than as a character.
  bool escape_del_and_replacements = false;
  /// The writer writes the elements of an array whose brackets another
  /// writer writes (values held apart, then spliced in with
  /// writer::splice_values): commas between its top-level values.
  bool array_elements = false;
};

/// Appends `s` as a JSON string literal (with the quotes) to `out`, each
/// byte that is not part of valid UTF-8 replaced.
FLOE_DECL void append_string(std::string& out, std::string_view s, writer_options const& options = {});

class writer {
 public:
  explicit writer(std::string& out, writer_options options = {}) noexcept
      : out_(out), options_(options), base_depth_(options.array_elements ? 1 : 0), depth_(base_depth_) {}

  FLOE_DECL void begin_object();
  FLOE_DECL void end_object();
  FLOE_DECL void begin_array();
  FLOE_DECL void end_array();
  /// A member name; the next value (or begin_*) is its value.
  FLOE_DECL void key(std::string_view k);
  FLOE_DECL void value(std::string_view s);
  void value(char const* s) { value(std::string_view(s)); }
  FLOE_DECL void value(bool b);
  template <std::integral T>
    requires(!std::same_as<T, bool>)
  void value(T n) {
    char buf[24];
    auto const r = std::to_chars(buf, buf + sizeof buf, n);
    token(std::string_view(buf, static_cast<std::size_t>(r.ptr - buf)));
  }
  FLOE_DECL void null();

  /// Values the caller writes itself at this point: complete JSON values,
  /// comma-separated (held apart while the document was written, perhaps
  /// streamed to where the document goes rather than appended here). When
  /// `any`, the writer places the comma they need before them and counts
  /// them as members of the open array; the caller then writes them, and
  /// the writer goes on after them.
  FLOE_DECL void splice_values(bool any);
  /// splice_values for values at hand: appends them.
  FLOE_DECL void raw_values(std::string_view values);

  /// Errors: errc::invalid_argument when a string (or key) was refused as
  /// not valid UTF-8 (the message names the member), or when begin and end
  /// calls did not pair up or a key stood where a value was due (a bug in
  /// the caller).
  FLOE_DECL result<void> check() const;

 private:
  FLOE_DECL void separate();
  FLOE_DECL void token(std::string_view t);
  FLOE_DECL void open(char c, bool object);
  FLOE_DECL void close(char c, bool object);
  FLOE_DECL void fail(std::string what);
  // 1: the innermost open container is an object; 0: an array, or none;
  // -1: not known (deeper than objects_ reaches).
  FLOE_DECL int container() const noexcept;

  std::string& out_;
  writer_options options_;
  std::size_t base_depth_;
  std::size_t depth_;
  // Bit i: the container at depth i + 1 is an object (checked to depth 64).
  std::uint64_t objects_ = 0;
  bool need_comma_ = false;
  bool after_key_ = false;
  bool failed_ = false;
  std::string failure_;  // the first misuse or refusal
  // Where the last key was written in out_, to name it in a refusal (the
  // caller's key may be gone by the time its value is written).
  std::size_t key_at_ = 0;
  std::size_t key_size_ = 0;
};

}  // namespace floe::json

#if defined(FLOE_HEADER_ONLY)
#include <floe/json/impl/writer.ipp>
#endif
