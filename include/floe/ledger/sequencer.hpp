#pragma once
// S3 event sequencers: the order of the events of one key. Pure.
//
// S3 gives each event a "sequencer", a hex string that grows with each
// change of one key. Two of them compare as S3 says: the shorter is
// right-padded with '0' to the other's length, then the strings compare as
// text (case aside: floe keeps them upper-case). They say nothing about
// the order of two different keys.

#include <floe/result.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace floe::ledger {

/// The longest sequencer accepted (S3's are 16 to 20 digits).
inline constexpr std::size_t max_sequencer_bytes = 64;

/// `s` upper-cased. Errors (invalid_argument): empty, longer than 64
/// characters, or not hex digits only.
inline result<std::string> normalize_sequencer(std::string_view s) {
  if (s.empty() || s.size() > max_sequencer_bytes)
    return error(errc::invalid_argument, "sequencer: not 1 to 64 hex digits (" + std::to_string(s.size()) + " characters)");
  std::string out(s);
  for (char& c : out) {
    if (c >= 'a' && c <= 'f') c = static_cast<char>(c - 'a' + 'A');
    if (!((c >= '0' && c <= '9') || (c >= 'A' && c <= 'F')))
      return error(errc::invalid_argument, "sequencer: not hex digits only");
  }
  return out;
}

/// <0, 0, >0 as `a` is older than, the same as, or newer than `b` (both
/// normalised, non-empty).
inline int compare_sequencers(std::string_view a, std::string_view b) noexcept {
  std::size_t const n = a.size() > b.size() ? a.size() : b.size();
  for (std::size_t i = 0; i < n; ++i) {
    char const x = i < a.size() ? a[i] : '0';
    char const y = i < b.size() ? b[i] : '0';
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

}  // namespace floe::ledger
