#pragma once
// The one JSON writer of the CLI: every `--json` document and JSON error
// line is built with it, so commas and string escaping live in one place.

#include <concepts>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace floe::cli {

/// Appends `s` as a JSON string literal (quotes included). Valid UTF-8 is
/// kept; any byte that is not part of valid UTF-8 becomes U+FFFD.
void append_json_string(std::string& out, std::string_view s);

/// Keys are escaped like values (append_json_string). Misuse (a value where
/// a key is due) is the caller's bug; the writer does not check.
///
///   json_writer w;
///   w.begin_object().field("uri", uri).field("size", n).end_object();
///   write_stdout(w.line());
class json_writer {
 public:
  json_writer& begin_object() { return open('{'); }
  json_writer& end_object() { return close('}'); }
  json_writer& begin_array() { return open('['); }
  json_writer& end_array() { return close(']'); }
  /// The next member's name (inside an object).
  json_writer& key(std::string_view k);
  json_writer& value(std::string_view s);
  json_writer& value(char const* s) { return value(std::string_view(s)); }
  json_writer& value(bool b);
  template <std::integral T>
    requires(!std::same_as<T, bool>)
  json_writer& value(T n) {
    return raw(std::to_string(n));
  }
  json_writer& null() { return raw("null"); }
  /// key(k).value(v)
  template <class T>
  json_writer& field(std::string_view k, T const& v) {
    key(k);
    return value(v);
  }

  std::string const& str() const noexcept { return out_; }
  /// What was written since the last take(), leaving the writer where it
  /// is (inside its open containers): a long document goes out piecewise.
  std::string take() { return std::exchange(out_, {}); }
  /// The document and a newline.
  std::string line() const { return out_ + "\n"; }

 private:
  json_writer& open(char c);
  json_writer& close(char c);
  json_writer& raw(std::string_view token);
  void separate();

  std::string out_;
  std::vector<bool> empty_;  // per open container: no member written yet
  bool after_key_ = false;
};

}  // namespace floe::cli
