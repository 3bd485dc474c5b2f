#pragma once
// A small JSON writer: appends to a std::string, no allocation of its own.
//
//   std::string out;
//   json::writer w(out);
//   w.begin_object();
//   w.key("n"); w.value(std::uint64_t{12});
//   w.key("name"); w.value("a \"b\"");
//   w.end_object();            // {"n":12,"name":"a \"b\""}
//
// Commas are placed by the writer; the caller only nests begin/end pairs
// correctly (unchecked, like any builder). Strings are written as UTF-8:
// '"', '\\' and the control characters U+0000..U+001F are escaped (the
// short forms \b \f \n \r \t where JSON has them, else \u00XX), everything
// else is copied. A byte sequence that is not valid UTF-8 cannot be
// represented in JSON; each such byte is written as U+FFFD, so the output is
// always valid JSON. Callers that must not alter data check valid_utf8
// first and refuse it.

#include <cstdint>
#include <string>
#include <string_view>

namespace floe::json {

/// `s` is well-formed UTF-8 (no overlong forms, no surrogates, at most U+10FFFF).
inline bool valid_utf8(std::string_view s) noexcept {
  auto const* p = reinterpret_cast<unsigned char const*>(s.data());
  auto const* const end = p + s.size();
  while (p < end) {
    unsigned char const c = *p;
    if (c < 0x80) {
      ++p;
      continue;
    }
    int n = 0;
    std::uint32_t cp = 0;
    if (c >= 0xc2 && c <= 0xdf) {
      n = 1;
      cp = c & 0x1fu;
    } else if (c >= 0xe0 && c <= 0xef) {
      n = 2;
      cp = c & 0x0fu;
    } else if (c >= 0xf0 && c <= 0xf4) {
      n = 3;
      cp = c & 0x07u;
    } else {
      return false;
    }
    if (end - p <= n) return false;
    for (int i = 1; i <= n; ++i) {
      if ((p[i] & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (p[i] & 0x3fu);
    }
    if ((n == 2 && cp < 0x800) || (n == 3 && (cp < 0x10000 || cp > 0x10ffff)) || (cp >= 0xd800 && cp <= 0xdfff))
      return false;
    p += n + 1;
  }
  return true;
}

/// Appends `s` as a JSON string literal (with the quotes) to `out`.
inline void append_string(std::string& out, std::string_view s) {
  static constexpr char hex[] = "0123456789abcdef";
  out += '"';
  std::size_t i = 0;
  while (i < s.size()) {
    unsigned char const c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      // Copy one well-formed sequence, or one U+FFFD for a bad byte.
      std::size_t n = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
      if (n <= s.size() - i && valid_utf8(s.substr(i, n))) {
        out.append(s.data() + i, n);
        i += n;
      } else {
        out += "\xef\xbf\xbd";
        ++i;
      }
      continue;
    }
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out += hex[c >> 4];
          out += hex[c & 0xf];
        } else {
          out += static_cast<char>(c);
        }
    }
    ++i;
  }
  out += '"';
}

class writer {
 public:
  explicit writer(std::string& out) noexcept : out_(out) {}

  void begin_object() { open('{'); }
  void end_object() { close('}'); }
  void begin_array() { open('['); }
  void end_array() { close(']'); }
  /// A member name; the next value (or begin_*) is its value.
  void key(std::string_view k) {
    separate();
    append_string(out_, k);
    out_ += ':';
    after_key_ = true;
  }
  void value(std::string_view s) {
    separate();
    append_string(out_, s);
  }
  void value(char const* s) { value(std::string_view(s)); }
  void value(std::uint64_t n) {
    separate();
    out_ += std::to_string(n);
  }
  void boolean(bool b) {
    separate();
    out_ += b ? "true" : "false";
  }
  void null() {
    separate();
    out_ += "null";
  }

 private:
  void separate() {
    if (after_key_)
      after_key_ = false;
    else if (need_comma_)
      out_ += ',';
    need_comma_ = true;
  }
  void open(char c) {
    separate();
    out_ += c;
    need_comma_ = false;
  }
  void close(char c) {
    out_ += c;
    need_comma_ = true;
    after_key_ = false;
  }

  std::string& out_;
  bool need_comma_ = false;
  bool after_key_ = false;
};

}  // namespace floe::json
