#pragma once
// The CLI's JSON writer: every `--json` document and JSON error line is
// built with it. The writing (commas, nesting, escaping) is the library's
// json::writer; this adds only the chaining, a string of its own and the
// piecewise hand-over of a long document.

#include <floe/json/writer.hpp>

#include <string>
#include <string_view>
#include <utility>

namespace floe::cli {

/// What the CLI writes: any byte that is not part of valid UTF-8 becomes
/// \ufffd, and DEL is escaped like the other control characters.
inline constexpr json::writer_options json_options{.escape_del_and_replacements = true};
/// The same for values held apart (a spill_buffer's) and spliced into
/// another writer's array with splice_values.
inline constexpr json::writer_options json_elements{.escape_del_and_replacements = true, .array_elements = true};

/// Keys are escaped like values. Misuse (a value where a key is due) is the
/// caller's bug; the writer does not report it.
///
///   json_writer w;
///   w.begin_object().field("uri", uri).field("size", n).end_object();
///   write_stdout(w.line());
class json_writer {
 public:
  json_writer() : json_writer(json_options) {}
  /// `options`: json_options, or json_elements.
  explicit json_writer(json::writer_options options) : w_(out_, options) {}
  // w_ refers to out_.
  json_writer(json_writer const&) = delete;
  json_writer& operator=(json_writer const&) = delete;

  json_writer& begin_object() { return then(&json::writer::begin_object); }
  json_writer& end_object() { return then(&json::writer::end_object); }
  json_writer& begin_array() { return then(&json::writer::begin_array); }
  json_writer& end_array() { return then(&json::writer::end_array); }
  /// The next member's name (inside an object).
  json_writer& key(std::string_view k) {
    w_.key(k);
    return *this;
  }
  /// A string, an integer or a bool.
  template <class T>
  json_writer& value(T const& v) {
    w_.value(v);
    return *this;
  }
  json_writer& null() { return then(&json::writer::null); }
  /// key(k).value(v)
  template <class T>
  json_writer& field(std::string_view k, T const& v) {
    key(k);
    return value(v);
  }
  /// json::writer::splice_values: values written elsewhere go out between
  /// take() and what this writer writes next.
  json_writer& splice_values(bool any) {
    w_.splice_values(any);
    return *this;
  }

  std::string const& str() const noexcept { return out_; }
  /// What was written since the last take(), leaving the writer where it
  /// is (inside its open containers): a long document goes out piecewise.
  std::string take() { return std::exchange(out_, {}); }
  /// The document and a newline.
  std::string line() const { return out_ + "\n"; }

 private:
  json_writer& then(void (json::writer::*step)()) {
    (w_.*step)();
    return *this;
  }

  std::string out_;
  json::writer w_;
};

}  // namespace floe::cli
