#pragma once
#include <floe/json/writer.hpp>

namespace floe::json {

namespace detail {

// The length of the well-formed UTF-8 sequence that starts at s[i] (a byte
// of 0x80 or more), or 0 when none does.
inline std::size_t sequence_length(std::string_view s, std::size_t i) noexcept {
  auto const b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char const c = b(i);
  std::size_t n = 0;
  std::uint32_t cp = 0;
  if (c >= 0xc2 && c <= 0xdf) {
    n = 2;
    cp = c & 0x1fu;
  } else if (c >= 0xe0 && c <= 0xef) {
    n = 3;
    cp = c & 0x0fu;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4;
    cp = c & 0x07u;
  } else {
    return 0;  // a continuation byte first, an overlong lead (C0, C1) or F5..FF
  }
  if (s.size() - i < n) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xc0u) != 0x80u) return 0;
    cp = (cp << 6) | (b(i + k) & 0x3fu);
  }
  if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff))) return 0;  // overlong, too big
  if (cp >= 0xd800 && cp <= 0xdfff) return 0;                                          // a surrogate
  return n;
}

// Appends `s` as a JSON string literal; false when a byte was replaced.
inline bool write_string(std::string& out, std::string_view s, writer_options const& o) {
  static constexpr char hex[] = "0123456789abcdef";
  std::string_view const replacement = o.escape_del_and_replacements ? "\\ufffd" : "\xef\xbf\xbd";
  bool whole = true;
  out += '"';
  std::size_t run = 0;  // the start of the bytes not yet copied
  std::size_t i = 0;
  while (i < s.size()) {
    auto const c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      if (auto const n = sequence_length(s, i); n != 0) {
        i += n;
        continue;
      }
      out.append(s.data() + run, i - run);
      out += replacement;
      whole = false;
      run = ++i;
      continue;
    }
    if (c >= 0x20 && c != '"' && c != '\\' && (c != 0x7f || !o.escape_del_and_replacements)) {
      ++i;
      continue;
    }
    out.append(s.data() + run, i - run);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        out += "\\u00";
        out += hex[c >> 4];
        out += hex[c & 0xf];
    }
    run = ++i;
  }
  out.append(s.data() + run, s.size() - run);
  out += '"';
  return whole;
}

}  // namespace detail

FLOE_DECL bool valid_utf8(std::string_view s) noexcept {
  std::size_t i = 0;
  while (i < s.size()) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    auto const n = detail::sequence_length(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

FLOE_DECL void append_string(std::string& out, std::string_view s, writer_options const& options) {
  detail::write_string(out, s, options);
}

FLOE_DECL int writer::container() const noexcept {
  if (depth_ == 0) return 0;
  if (depth_ > 64) return -1;
  return ((objects_ >> (depth_ - 1)) & 1u) != 0 ? 1 : 0;
}

FLOE_DECL void writer::fail(std::string what) {
  if (failed_) return;
  failed_ = true;
  failure_ = std::move(what);
}

FLOE_DECL void writer::separate() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (container() == 1) fail("JSON writer: a value in an object without a key");
  if (depth_ > 0 && need_comma_) out_ += ',';
  need_comma_ = true;
}

FLOE_DECL void writer::token(std::string_view t) {
  separate();
  out_ += t;
}

FLOE_DECL void writer::open(char c, bool object) {
  separate();
  out_ += c;
  if (depth_ < 64) {
    std::uint64_t const bit = std::uint64_t{1} << depth_;
    objects_ = object ? objects_ | bit : objects_ & ~bit;
  }
  ++depth_;
  need_comma_ = false;
}

FLOE_DECL void writer::close(char c, bool object) {
  char const* const name = object ? "end_object" : "end_array";
  if (depth_ == base_depth_)
    fail(std::string("JSON writer: ") + name + " without a matching begin");
  else if (after_key_)
    fail(std::string("JSON writer: ") + name + " after a key");
  else if (container() != -1 && (container() == 1) != object)
    fail(std::string("JSON writer: ") + name + " closes " + (object ? "an array" : "an object"));
  out_ += c;
  if (depth_ > base_depth_) --depth_;
  need_comma_ = true;
  after_key_ = false;
}

FLOE_DECL void writer::begin_object() { open('{', true); }
FLOE_DECL void writer::end_object() { close('}', true); }
FLOE_DECL void writer::begin_array() { open('[', false); }
FLOE_DECL void writer::end_array() { close(']', false); }

FLOE_DECL void writer::key(std::string_view k) {
  if (after_key_)
    fail("JSON writer: a key where a value is due");
  else if (container() == 0)
    fail("JSON writer: a key outside an object");
  if (depth_ > 0 && need_comma_ && !after_key_) out_ += ',';
  need_comma_ = true;
  key_at_ = out_.size() + 1;
  bool const whole = detail::write_string(out_, k, options_);
  key_size_ = out_.size() - 1 - key_at_;
  out_ += ':';
  after_key_ = true;
  if (!whole && options_.on_bad_utf8 == bad_utf8::refuse) fail("a member name is not valid UTF-8");
}

FLOE_DECL void writer::value(std::string_view s) {
  bool const member = after_key_ && key_size_ != 0;
  separate();
  std::size_t const at = key_at_, size = key_size_;
  if (detail::write_string(out_, s, options_) || options_.on_bad_utf8 != bad_utf8::refuse) return;
  // The key as written (escaped), unless the caller has taken it from out_.
  if (member && at + size <= out_.size())
    fail("the value of " + out_.substr(at, size) + " is not valid UTF-8");
  else
    fail("a string value is not valid UTF-8");
}

FLOE_DECL void writer::value(bool b) { token(b ? "true" : "false"); }

FLOE_DECL void writer::null() { token("null"); }

FLOE_DECL void writer::splice_values(bool any) {
  if (any) separate();
}

FLOE_DECL void writer::raw_values(std::string_view values) {
  splice_values(!values.empty());
  out_ += values;
}

FLOE_DECL result<void> writer::check() const {
  if (failed_) return error(errc::invalid_argument, failure_);
  if (depth_ != base_depth_ || after_key_)
    return error(errc::invalid_argument, "JSON writer: a container or a member was left open");
  return {};
}

}  // namespace floe::json
