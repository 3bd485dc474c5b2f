#pragma once
// Small text helpers of the SQS pure core. Internal.

#include <string>
#include <string_view>

namespace floe::sqs::detail {

inline bool starts_with_nocase(std::string_view s, std::string_view lower_prefix) noexcept {
  if (s.size() < lower_prefix.size()) return false;
  for (std::size_t i = 0; i < lower_prefix.size(); ++i) {
    char c = s[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != lower_prefix[i]) return false;
  }
  return true;
}

/// Caller-given text for a message: at most `max` bytes, control
/// characters shown as '?'.
inline std::string shown(std::string_view s, std::size_t max = 100) {
  std::string out;
  for (char c : s.substr(0, max)) {
    auto const u = static_cast<unsigned char>(c);
    out += u < 0x20 || u == 0x7f ? '?' : c;
  }
  if (s.size() > max) out += "...";
  return out;
}

}  // namespace floe::sqs::detail
