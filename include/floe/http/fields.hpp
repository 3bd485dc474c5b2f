#pragma once
// http::fields: an HTTP header list kept as the bytes it is sent or received
// as ("Name: value\r\n" lines) plus a small index. No heap node per field:
// clear() keeps the capacity, so a reused request or response allocates
// nothing once warm.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace floe::http {

class fields {
 public:
  struct field {
    std::string_view name;
    std::string_view value;
  };

  /// Replaces every field named `name` (case-insensitive) with one field.
  /// A name or value with CR, LF or NUL (header injection) is refused:
  /// nothing is set and the list is marked invalid (see valid()).
  void set(std::string_view name, std::string_view value) {
    erase(name);
    add(name, value);
  }

  /// Appends a field, even if one of that name exists.
  void add(std::string_view name, std::string_view value) {
    if (!acceptable(name, value)) {
      valid_ = false;
      return;
    }
    entry e;
    e.offset = static_cast<std::uint32_t>(buf_.size());
    e.name_len = static_cast<std::uint32_t>(name.size());
    e.value_len = static_cast<std::uint32_t>(value.size());
    // One resize and straight copies: a header list is built field by field
    // on every request and reply.
    buf_.resize(buf_.size() + line_len(e));
    char* p = buf_.data() + e.offset;
    std::memcpy(p, name.data(), name.size());
    p += name.size();
    *p++ = ':';
    *p++ = ' ';
    if (!value.empty()) std::memcpy(p, value.data(), value.size());
    p += value.size();
    *p++ = '\r';
    *p = '\n';
    index_.push_back(e);
  }

  /// Removes every field named `name`; returns how many went.
  std::size_t erase(std::string_view name) {
    std::size_t n = 0;
    for (std::size_t i = index_.size(); i-- > 0;) {
      if (!iequals(name_at(i), name)) continue;
      auto const off = index_[i].offset;
      auto const len = line_len(index_[i]);
      buf_.erase(off, len);
      index_.erase(index_.begin() + static_cast<std::ptrdiff_t>(i));
      for (std::size_t j = i; j < index_.size(); ++j) index_[j].offset -= len;
      ++n;
    }
    return n;
  }

  /// The first value of `name`, or an empty view.
  std::string_view get(std::string_view name) const noexcept {
    for (std::size_t i = 0; i < index_.size(); ++i)
      if (iequals(name_at(i), name)) return value_at(i);
    return {};
  }
  bool contains(std::string_view name) const noexcept {
    for (std::size_t i = 0; i < index_.size(); ++i)
      if (iequals(name_at(i), name)) return true;
    return false;
  }

  std::size_t size() const noexcept { return index_.size(); }
  bool empty() const noexcept { return index_.empty(); }
  field operator[](std::size_t i) const noexcept { return {name_at(i), value_at(i)}; }

  /// All fields as sent on the wire ("Name: value\r\n" each).
  std::string_view wire() const noexcept { return buf_; }

  /// False once a set()/add() was refused for CR/LF/NUL.
  bool valid() const noexcept { return valid_; }

  /// Empties the list, keeping its memory.
  void clear() noexcept {
    buf_.clear();
    index_.clear();
    valid_ = true;
  }
  void reserve(std::size_t bytes, std::size_t count) {
    buf_.reserve(bytes);
    index_.reserve(count);
  }

  static bool iequals(std::string_view a, std::string_view b) noexcept {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (lower(a[i]) != lower(b[i])) return false;
    return true;
  }

 private:
  struct entry {
    std::uint32_t offset;
    std::uint32_t name_len;
    std::uint32_t value_len;
  };

  static char lower(char c) noexcept { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + ('a' - 'A')) : c; }
  // Whole strings at a time, no early exit: the loops vectorise (a refused
  // field is the rare case).
  static bool acceptable(std::string_view name, std::string_view value) noexcept {
    if (name.empty()) return false;
    unsigned bad = 0;
    for (unsigned char c : name) bad |= static_cast<unsigned>((c <= ' ') | (c >= 0x7f) | (c == ':'));  // controls, space, DEL, non-ASCII
    if (bad != 0) return false;
    // CR, LF and NUL are all below 0x0e: the smallest byte decides (a min
    // reduction, one instruction per vector); only a value holding some
    // other control byte (a tab) is looked at byte by byte.
    unsigned char smallest = 0xff;
    for (unsigned char c : value) smallest = c < smallest ? c : smallest;
    if (smallest >= 0x0e) return true;
    for (char c : value) bad |= static_cast<unsigned>((c == '\r') | (c == '\n') | (c == '\0'));
    return bad == 0;
  }
  static std::uint32_t line_len(entry const& e) noexcept { return e.name_len + e.value_len + 4; }
  std::string_view name_at(std::size_t i) const noexcept {
    return std::string_view(buf_).substr(index_[i].offset, index_[i].name_len);
  }
  std::string_view value_at(std::size_t i) const noexcept {
    return std::string_view(buf_).substr(index_[i].offset + index_[i].name_len + 2, index_[i].value_len);
  }

  std::string buf_;
  std::vector<entry> index_;
  bool valid_ = true;
};

}  // namespace floe::http
