#pragma once
#include <floe/checksum/base64.hpp>

#include <cstdint>

namespace floe::checksum {

namespace detail {
inline constexpr char base64_alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// The 6-bit value of c, or -1.
constexpr int base64_value(char c) noexcept {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}
}  // namespace detail

FLOE_DECL void base64_append(std::string& out, std::span<unsigned char const> bytes) {
  out.reserve(out.size() + (bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    std::uint32_t const v = (std::uint32_t{bytes[i]} << 16) | (std::uint32_t{bytes[i + 1]} << 8) | bytes[i + 2];
    out += detail::base64_alphabet[(v >> 18) & 63];
    out += detail::base64_alphabet[(v >> 12) & 63];
    out += detail::base64_alphabet[(v >> 6) & 63];
    out += detail::base64_alphabet[v & 63];
  }
  std::size_t const rest = bytes.size() - i;
  if (rest == 0) return;
  std::uint32_t v = std::uint32_t{bytes[i]} << 16;
  if (rest == 2) v |= std::uint32_t{bytes[i + 1]} << 8;
  out += detail::base64_alphabet[(v >> 18) & 63];
  out += detail::base64_alphabet[(v >> 12) & 63];
  out += rest == 2 ? detail::base64_alphabet[(v >> 6) & 63] : '=';
  out += '=';
}

FLOE_DECL std::optional<std::size_t> base64_decode(std::string_view in, std::span<unsigned char> out) noexcept {
  if (in.size() % 4 != 0) return std::nullopt;
  std::size_t pad = 0;
  if (!in.empty() && in.back() == '=') pad = in[in.size() - 2] == '=' ? 2 : 1;
  std::size_t const n = in.size() / 4 * 3 - pad;
  if (n > out.size()) return std::nullopt;
  std::size_t w = 0;
  for (std::size_t i = 0; i < in.size(); i += 4) {
    bool const last = i + 4 == in.size();
    std::size_t const chars = last ? 4 - pad : 4;
    std::uint32_t v = 0;
    for (std::size_t j = 0; j < 4; ++j) {
      int d = 0;
      if (j < chars) {
        d = detail::base64_value(in[i + j]);
        if (d < 0) return std::nullopt;  // includes an '=' before the end
      }
      v = (v << 6) | static_cast<std::uint32_t>(d);
    }
    // Canonical: the bits the padding drops are zero.
    if (last && pad == 1 && (v & 0xffu) != 0) return std::nullopt;
    if (last && pad == 2 && (v & 0xffffu) != 0) return std::nullopt;
    std::size_t const bytes = last ? 3 - pad : 3;
    for (std::size_t j = 0; j < bytes; ++j) out[w++] = static_cast<unsigned char>(v >> (16 - 8 * j));
  }
  return w;
}

}  // namespace floe::checksum
