// Glob matching for --exclude / --include.

#include "filters.hpp"

#include <cstddef>

namespace floe::cli {

namespace {

// The length of the UTF-8 sequence starting at text[t] (1 for a stray byte).
std::size_t sequence_length(std::string_view text, std::size_t t) {
  auto const c = static_cast<unsigned char>(text[t]);
  std::size_t n = c < 0xC0 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
  std::size_t i = 1;
  while (i < n && t + i < text.size() && (static_cast<unsigned char>(text[t + i]) & 0xC0) == 0x80) ++i;
  return i;
}

// A '[' set at pattern[p]: whether it is one (closed by ']'), where it ends
// (just past the ']'), and whether `c` is in it.
struct set_match {
  bool valid = false;
  std::size_t end = 0;
  bool matches = false;
};

set_match match_set(std::string_view pattern, std::size_t p, unsigned char c) {
  set_match r;
  std::size_t i = p + 1;
  bool negate = false;
  if (i < pattern.size() && pattern[i] == '!') {
    negate = true;
    ++i;
  }
  std::size_t const first = i;
  bool hit = false;
  while (i < pattern.size() && (pattern[i] != ']' || i == first)) {
    auto const lo = static_cast<unsigned char>(pattern[i]);
    if (i + 2 < pattern.size() && pattern[i + 1] == '-' && pattern[i + 2] != ']') {
      auto const hi = static_cast<unsigned char>(pattern[i + 2]);
      if (lo <= c && c <= hi) hit = true;
      i += 3;
    } else {
      if (lo == c) hit = true;
      ++i;
    }
  }
  if (i >= pattern.size()) return r;  // never closed: the '[' is a literal
  r.valid = true;
  r.end = i + 1;
  r.matches = hit != negate;
  return r;
}

}  // namespace

bool glob_match(std::string_view pattern, std::string_view text) noexcept {
  std::size_t p = 0, t = 0;
  // The last '*' seen, and where in the text its match currently ends: on
  // a mismatch it takes one more character and the rest is tried again.
  std::size_t star = std::string_view::npos, star_text = 0;
  while (t < text.size()) {
    if (p < pattern.size()) {
      char const c = pattern[p];
      if (c == '*') {
        star = p++;
        star_text = t;
        continue;
      }
      if (c == '?') {
        ++p;
        t += sequence_length(text, t);
        continue;
      }
      if (c == '[') {
        auto const s = match_set(pattern, p, static_cast<unsigned char>(text[t]));
        if (s.valid) {
          if (s.matches) {
            p = s.end;
            ++t;
            continue;
          }
        } else if (text[t] == '[') {
          ++p;
          ++t;
          continue;
        }
      } else if (c == text[t]) {
        ++p;
        ++t;
        continue;
      }
    }
    if (star == std::string_view::npos) return false;
    p = star + 1;
    t = ++star_text;
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

bool included(std::vector<filter_rule> const& rules, std::string_view relative) noexcept {
  bool taken = true;
  for (auto const& r : rules)
    if (glob_match(r.pattern, relative)) taken = r.include;
  return taken;
}

}  // namespace floe::cli
