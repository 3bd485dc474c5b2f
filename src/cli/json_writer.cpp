// The JSON writer: string escaping and the commas between members.

#include "json_writer.hpp"

#include <cstdint>

namespace floe::cli {

namespace {

// Length of the valid UTF-8 sequence at s[i], or 0.
std::size_t utf8_length(std::string_view s, std::size_t i) {
  auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = b(i);
  std::size_t n = 0;
  std::uint32_t cp = 0;
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
    cp = c & 0x1Fu;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    cp = c & 0x0Fu;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    cp = c & 0x07u;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xC0u) != 0x80u) return 0;
    cp = (cp << 6) | (b(i + k) & 0x3Fu);
  }
  if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF))) return 0;  // overlong / too big
  if (cp >= 0xD800 && cp <= 0xDFFF) return 0;                                          // surrogates
  return n;
}

constexpr char hex_digits[] = "0123456789abcdef";

}  // namespace

void append_json_string(std::string& out, std::string_view s) {
  out += '"';
  for (std::size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      auto n = utf8_length(s, i);
      if (n == 0) {
        out += "\\ufffd";
        ++i;
      } else {
        out.append(s.substr(i, n));
        i += n;
      }
      continue;
    }
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          out += "\\u00";
          out += hex_digits[c >> 4];
          out += hex_digits[c & 15];
        } else {
          out += static_cast<char>(c);
        }
    }
    ++i;
  }
  out += '"';
}

void json_writer::separate() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!empty_.empty()) {
    if (!empty_.back()) out_ += ',';
    empty_.back() = false;
  }
}

json_writer& json_writer::open(char c) {
  separate();
  out_ += c;
  empty_.push_back(true);
  return *this;
}

json_writer& json_writer::close(char c) {
  out_ += c;
  if (!empty_.empty()) empty_.pop_back();
  return *this;
}

json_writer& json_writer::raw(std::string_view token) {
  separate();
  out_ += token;
  return *this;
}

json_writer& json_writer::key(std::string_view k) {
  separate();
  append_json_string(out_, k);
  out_ += ':';
  after_key_ = true;
  return *this;
}

json_writer& json_writer::value(std::string_view s) {
  separate();
  append_json_string(out_, s);
  return *this;
}

json_writer& json_writer::value(bool b) { return raw(b ? "true" : "false"); }

}  // namespace floe::cli
