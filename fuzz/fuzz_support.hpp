#pragma once
// What every fuzz target shares: the invariant check that aborts (so that
// libFuzzer, or the replay program, reports the input), the name of the
// input being replayed, and small helpers to cut one input into several
// fields. Each target defines LLVMFuzzerTestOneInput and nothing else; the
// replay program's main is replay_main.cpp.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include <stdio.h>  // dprintf

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size);

namespace floe_fuzz {

/// The file the replay program is running (empty under libFuzzer, which
/// names the input itself).
inline char const* current_input = "";
/// Where a broken invariant is reported: stderr, or (while the replay
/// program points fd 2 at its scratch file) a copy of the real one.
inline int report_fd = 2;

inline void check(bool ok, char const* what) {
  if (!ok) {
    dprintf(report_fd, "invariant broken: %s (input %s)\n", what, current_input);
    std::abort();
  }
}

inline std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

/// `s` cut at every `sep` (an input without one is one field).
inline std::vector<std::string_view> split(std::string_view s, char sep, std::size_t max_fields = 256) {
  std::vector<std::string_view> out;
  while (out.size() + 1 < max_fields) {
    auto const at = s.find(sep);
    if (at == std::string_view::npos) break;
    out.push_back(s.substr(0, at));
    s.remove_prefix(at + 1);
  }
  out.push_back(s);
  return out;
}

inline bool is_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F') || (c >= 'a' && c <= 'f'); }

inline int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

/// Undoes %XX escapes once ('+' stays '+'). False when a '%' is not
/// followed by two hex digits.
inline bool percent_decode(std::string_view s, std::string& out) {
  out.clear();
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    if (i + 2 >= s.size()) return false;
    if (!is_hex(s[i + 1]) || !is_hex(s[i + 2])) return false;
    out += static_cast<char>(hex_value(s[i + 1]) * 16 + hex_value(s[i + 2]));
    i += 2;
  }
  return true;
}

/// Whether `secret` shows in `message`. Short secrets and ones that are part
/// of text a message may quote legitimately (a section name, a file name, a
/// field name of floe's own wording) cannot be told apart from that text,
/// so they are not looked for.
inline bool leaks(std::string_view message, std::string_view secret,
                  std::initializer_list<std::string_view> may_quote = {}) {
  if (secret.size() < 8) return false;
  for (auto q : may_quote)
    if (q.find(secret) != std::string_view::npos) return false;
  return message.find(secret) != std::string_view::npos;
}

/// `s` with every printable ASCII character other than `keep` replaced by
/// another letter ('Q', or 'R' for a 'Q'), everything else left in place:
/// a different value that check_credential_field judges the same way (it
/// looks only at blanks, line ends, controls and non-ASCII bytes). The
/// differential checks give a parser the input with each secret masked and
/// require the same messages: a message that depends on a secret's value
/// shows it.
inline std::string masked(std::string_view s, std::string_view keep = {}) {
  std::string out(s);
  for (auto& c : out) {
    if (c < 0x21 || c > 0x7e || keep.find(c) != std::string_view::npos) continue;
    c = c == 'Q' ? 'R' : 'Q';
  }
  return out;
}

/// `s` with every occurrence of `from` (non-empty) replaced by `to`.
inline std::string replace_all(std::string_view s, std::string_view from, std::string_view to) {
  std::string out;
  std::size_t pos = 0;
  for (auto at = s.find(from); at != std::string_view::npos; at = s.find(from, pos)) {
    out.append(s.substr(pos, at - pos));
    out.append(to);
    pos = at + from.size();
  }
  out.append(s.substr(pos));
  return out;
}

/// True when `s` has no byte below 0x20 and no DEL: fit for a one-line
/// message.
inline bool printable_line(std::string_view s) {
  for (char c : s)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return false;
  return true;
}

}  // namespace floe_fuzz
