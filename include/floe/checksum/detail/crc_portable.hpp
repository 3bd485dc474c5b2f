#pragma once
// The portable CRC: slicing-by-8 over tables computed at compile time from
// the polynomial (polynomial.hpp). Any CPU, any alignment, any byte order.
// It is also the reference the SIMD kernels are tested against, and their
// final step (the last 16 bytes of folded state and the tail).

#include <floe/checksum/detail/polynomial.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace floe::checksum::detail {

template <crc_spec S, class T>
inline constexpr std::array<std::array<T, 256>, 8> crc_tables = make_tables<S, T>();

/// Feeds p[0..n) into the raw (reflected, not inverted) register r.
template <crc_spec S, class T>
constexpr T update_portable(T r, unsigned char const* p, std::size_t n) noexcept {
  auto const& t = crc_tables<S, T>;
  while (n >= 8) {
    std::uint64_t v = 0;
    if (std::is_constant_evaluated() || std::endian::native != std::endian::little) {
      for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
    } else {
      std::memcpy(&v, p, 8);
    }
    v ^= r;
    r = static_cast<T>(t[7][v & 0xffu] ^ t[6][(v >> 8) & 0xffu] ^ t[5][(v >> 16) & 0xffu] ^
                       t[4][(v >> 24) & 0xffu] ^ t[3][(v >> 32) & 0xffu] ^ t[2][(v >> 40) & 0xffu] ^
                       t[1][(v >> 48) & 0xffu] ^ t[0][v >> 56]);
    p += 8;
    n -= 8;
  }
  while (n-- != 0) r = static_cast<T>((r >> 8) ^ t[0][(r ^ *p++) & 0xffu]);
  return r;
}

/// update_portable with the register widened to 64 bits: the SIMD kernels'
/// tail function, one signature for every width.
template <crc_spec S, class T>
std::uint64_t update_portable64(std::uint64_t r, unsigned char const* p, std::size_t n) noexcept {
  return update_portable<S, T>(static_cast<T>(r), p, n);
}

}  // namespace floe::checksum::detail
