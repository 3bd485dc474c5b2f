#pragma once
// GF(2) polynomial arithmetic modulo a CRC's generator, at compile time or
// run time: the source of every table and folding constant floe's CRCs use
// (none is copied from elsewhere; each is computed here from the polynomial).
//
// A polynomial of degree < width is held in "normal" form: bit j is the
// coefficient of x^j. The three CRCs floe computes are reflected (bytes enter
// least significant bit first) with init and xorout all ones; their register
// value r of `width` bits is the polynomial reverse_bits(r, width).

#include <array>
#include <cstddef>
#include <cstdint>

namespace floe::checksum::detail {

/// A reflected CRC with init = xorout = all ones: its width (32 or 64) and
/// its generator in normal form without the x^width term.
struct crc_spec {
  unsigned width;
  std::uint64_t poly;
};

// The generators as published (normal form): ISO-HDLC / zlib, Castagnoli,
// and NVMe (NVM Express base specification; "CRC-64/NVME").
inline constexpr crc_spec crc32_spec{32, 0x04C11DB7u};
inline constexpr crc_spec crc32c_spec{32, 0x1EDC6F41u};
inline constexpr crc_spec crc64nvme_spec{64, 0xAD93D23594C93659u};

constexpr std::uint64_t low_mask(unsigned width) noexcept {
  return width >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1;
}

/// The low `width` bits of v in reverse order.
constexpr std::uint64_t reverse_bits(std::uint64_t v, unsigned width) noexcept {
  std::uint64_t r = 0;
  for (unsigned i = 0; i < width; ++i) r |= ((v >> i) & 1u) << (width - 1 - i);
  return r;
}

/// a * x mod P.
constexpr std::uint64_t times_x(crc_spec s, std::uint64_t a) noexcept {
  bool const carry = ((a >> (s.width - 1)) & 1u) != 0;
  a = (a << 1) & low_mask(s.width);
  return carry ? a ^ s.poly : a;
}

/// a * b mod P (both of degree < width).
constexpr std::uint64_t mul_mod(crc_spec s, std::uint64_t a, std::uint64_t b) noexcept {
  std::uint64_t r = 0;
  for (unsigned i = s.width; i-- > 0;) {
    r = times_x(s, r);
    if ((b >> i) & 1u) r ^= a;
  }
  return r;
}

/// x^k mod P by k steps: for the compile-time constants (k is small).
constexpr std::uint64_t x_pow_mod_slow(crc_spec s, unsigned k) noexcept {
  std::uint64_t r = 1;
  for (unsigned i = 0; i < k; ++i) r = times_x(s, r);
  return r;
}

/// x^(2^i) mod P for i = 0..66: the squares that x^(8n) mod P is built from
/// for any byte count n < 2^64.
template <crc_spec S>
constexpr std::array<std::uint64_t, 67> make_x_pow_2i() noexcept {
  std::array<std::uint64_t, 67> t{};
  t[0] = 2;  // x
  for (std::size_t i = 1; i < t.size(); ++i) t[i] = mul_mod(S, t[i - 1], t[i - 1]);
  return t;
}

template <crc_spec S>
inline constexpr std::array<std::uint64_t, 67> x_pow_2i = make_x_pow_2i<S>();

/// x^(8n) mod P in O(log n) multiplications.
template <crc_spec S>
constexpr std::uint64_t x_pow_8n_mod(std::uint64_t n) noexcept {
  std::uint64_t r = 1;
  for (unsigned j = 0; n != 0; ++j, n >>= 1)
    if (n & 1u) r = mul_mod(S, r, x_pow_2i<S>[j + 3]);
  return r;
}

/// The register of crc(A || Z) from that of crc(A) where Z is n zero bytes,
/// before init/xorout: r * x^(8n) mod P in reflected form. Because init and
/// xorout are equal, crc(A || B) = shift(crc(A), len B) ^ crc(B).
template <crc_spec S>
constexpr std::uint64_t shift_register(std::uint64_t reflected, std::uint64_t n) noexcept {
  std::uint64_t const a = reverse_bits(reflected, S.width);
  return reverse_bits(mul_mod(S, a, x_pow_8n_mod<S>(n)), S.width);
}

/// Slicing-by-8 tables: t[0][b] is the register after feeding byte b into a
/// zero register (b * x^width mod P, reflected); t[k][b] the same followed by
/// k zero bytes.
template <crc_spec S, class T>
constexpr std::array<std::array<T, 256>, 8> make_tables() noexcept {
  std::uint64_t const rpoly = reverse_bits(S.poly, S.width);
  std::array<std::array<T, 256>, 8> t{};
  for (unsigned b = 0; b < 256; ++b) {
    std::uint64_t r = b;
    for (int i = 0; i < 8; ++i) r = (r & 1u) ? (r >> 1) ^ rpoly : r >> 1;
    t[0][b] = static_cast<T>(r);
  }
  for (std::size_t k = 1; k < 8; ++k)
    for (unsigned b = 0; b < 256; ++b) t[k][b] = static_cast<T>((t[k - 1][b] >> 8) ^ t[0][t[k - 1][b] & 0xffu]);
  return t;
}

/// One pair of carry-less multiplication constants that move a 128-bit block
/// `bits` further along the message (see crc_x86.ipp for the derivation):
/// `high` multiplies the block's first 64 bits, `low` its last 64.
struct fold_pair {
  std::uint64_t high;
  std::uint64_t low;
};

/// For a 128-bit block B = H * x^64 + L (H: the first 8 bytes), B * x^bits =
/// H * x^(bits+64) + L * x^bits. A carry-less product of two reflected 64-bit
/// values is the product times x, so the constants are x^(bits+63) mod P and
/// x^(bits-1) mod P, each reflected in 64 bits (bit i = coefficient of
/// x^(63-i)).
constexpr fold_pair make_fold_pair(crc_spec s, unsigned bits) noexcept {
  return {reverse_bits(x_pow_mod_slow(s, bits + 63), 64), reverse_bits(x_pow_mod_slow(s, bits - 1), 64)};
}

/// The distances the folding kernels use: one block (128 bits), four blocks
/// (512: four 128-bit lanes or one 512-bit register), sixteen blocks (2048:
/// four 512-bit registers), and 256/384 to merge lanes.
struct fold_constants {
  fold_pair by128, by256, by384, by512, by2048;
};

constexpr fold_constants make_fold_constants(crc_spec s) noexcept {
  return {make_fold_pair(s, 128), make_fold_pair(s, 256), make_fold_pair(s, 384), make_fold_pair(s, 512),
          make_fold_pair(s, 2048)};
}

}  // namespace floe::checksum::detail
