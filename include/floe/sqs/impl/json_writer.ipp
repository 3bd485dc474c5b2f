#pragma once
#include <floe/sqs/json_writer.hpp>

#include <charconv>

namespace floe::sqs {

FLOE_DECL bool is_valid_utf8(std::string_view s) noexcept {
  auto const* p = reinterpret_cast<unsigned char const*>(s.data());
  auto const* const end = p + s.size();
  while (p < end) {
    unsigned const c = *p;
    if (c < 0x80) {
      ++p;
      continue;
    }
    std::size_t n = 0;
    std::uint32_t cp = 0;
    if (c >= 0xC2 && c <= 0xDF) {
      n = 1;
      cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      n = 2;
      cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      n = 3;
      cp = c & 0x07;
    } else {
      return false;  // a continuation byte first, an overlong lead (C0, C1) or F5..FF
    }
    if (static_cast<std::size_t>(end - p) <= n) return false;
    for (std::size_t i = 1; i <= n; ++i) {
      unsigned const cc = p[i];
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    if (n == 2 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) return false;
    if (n == 3 && (cp < 0x10000 || cp > 0x10FFFF)) return false;
    p += n + 1;
  }
  return true;
}

FLOE_DECL void json_writer::separate() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!has_member_.empty()) {
    if (has_member_.back()) out_ += ',';
    has_member_.back() = true;
  }
}

FLOE_DECL void json_writer::write_string(std::string_view s) {
  static constexpr char hex[] = "0123456789abcdef";
  out_ += '"';
  std::size_t run = 0;  // start of the bytes not yet copied
  for (std::size_t i = 0; i < s.size(); ++i) {
    auto const c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out_.append(s.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"': out_ += "\\\""; break;
      case '\\': out_ += "\\\\"; break;
      case '\n': out_ += "\\n"; break;
      case '\r': out_ += "\\r"; break;
      case '\t': out_ += "\\t"; break;
      case '\b': out_ += "\\b"; break;
      case '\f': out_ += "\\f"; break;
      default:
        out_ += "\\u00";
        out_ += hex[c >> 4];
        out_ += hex[c & 0xF];
    }
  }
  out_.append(s.data() + run, s.size() - run);
  out_ += '"';
}

FLOE_DECL void json_writer::begin_object() {
  separate();
  out_ += '{';
  has_member_.push_back(false);
}

FLOE_DECL void json_writer::end_object() {
  if (has_member_.empty() || after_key_) {
    if (!broken_) failure_ = "JSON writer: end_object without a matching begin_object or after a key";
    broken_ = true;
    return;
  }
  has_member_.pop_back();
  out_ += '}';
}

FLOE_DECL void json_writer::begin_array() {
  separate();
  out_ += '[';
  has_member_.push_back(false);
}

FLOE_DECL void json_writer::end_array() {
  if (has_member_.empty() || after_key_) {
    if (!broken_) failure_ = "JSON writer: end_array without a matching begin_array or after a key";
    broken_ = true;
    return;
  }
  has_member_.pop_back();
  out_ += ']';
}

FLOE_DECL void json_writer::key(std::string_view name) {
  if (!broken_ && !is_valid_utf8(name)) {
    broken_ = true;
    failure_ = "a member name is not valid UTF-8";
  }
  separate();
  key_at_ = out_.size() + 1;
  write_string(name);
  key_size_ = out_.size() - 1 - key_at_;
  out_ += ':';
  after_key_ = true;
}

FLOE_DECL void json_writer::string(std::string_view value) {
  if (!broken_ && !is_valid_utf8(value)) {
    broken_ = true;
    // The key as written (escaped), when this value belongs to one.
    failure_ = !after_key_ || key_size_ == 0 || !is_valid_utf8(std::string_view(out_).substr(key_at_, key_size_))
                   ? std::string("a string value is not valid UTF-8")
                   : "the value of " + out_.substr(key_at_, key_size_) + " is not valid UTF-8";
  }
  separate();
  write_string(value);
}

FLOE_DECL void json_writer::number(std::int64_t value) {
  separate();
  char buf[24];
  auto const r = std::to_chars(buf, buf + sizeof buf, value);
  out_.append(buf, r.ptr);
}

FLOE_DECL void json_writer::boolean(bool value) {
  separate();
  out_ += value ? "true" : "false";
}

FLOE_DECL result<std::string> json_writer::finish() {
  if (!broken_ && (!has_member_.empty() || after_key_)) {
    broken_ = true;
    failure_ = "JSON writer: a container or a member was left open";
  }
  if (broken_) return error(errc::invalid_argument, failure_);
  return std::move(out_);
}

}  // namespace floe::sqs
