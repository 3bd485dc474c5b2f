#pragma once
#include <floe/checksum/detail/crc_x86.hpp>

#if FLOE_CHECKSUM_X86
#include <immintrin.h>

#include <cstring>

// How the folding works (the constants come from polynomial.hpp).
//
// A reflected CRC feeds each byte least significant bit first, so 16 message
// bytes loaded little-endian into a 128-bit register put the message's first
// bit in register bit 0: bit k is the coefficient of x^(127-k) of the block's
// polynomial B. With H = the first 8 bytes and L = the last 8, B = H*x^64 + L.
// The CRC's register is (message * x^width) mod P, and any polynomial
// congruent to the message mod P gives the same CRC, so the kernels keep a
// 128-bit value congruent to the message read so far and never reduce it:
// moving a block `d` bits further (d bits of message follow it) is
// B*x^d = H*x^(d+64) + L*x^d, and with C1 = x^(d+63) mod P and
// C2 = x^(d-1) mod P (degree < 64), H*C1 and L*C2 are carry-less products of
// two 64-bit values that fit 128 bits. Multiplying two bit-reflected 64-bit
// values gives the reflected 127-bit product in bits 0..126, which read as a
// 128-bit reflected value is the product times x; hence the -1 in both
// exponents. One fold is then clmul(lo(B), C1) ^ clmul(hi(B), C2), XORed with
// the block d bits on. The register value going in is XORed into the first
// bytes (init); at the end the 16 folded bytes are fed to a zeroed register
// by the tail function (the table or the crc32 instruction), and the last
// n % 16 bytes after them.

namespace floe::checksum::detail {

FLOE_DECL bool cpu_has_pclmul() noexcept {
  return __builtin_cpu_supports("sse4.2") && __builtin_cpu_supports("pclmul");
}

// libgcc reports the AVX-512 features only when XCR0 says the OS saves the
// 512-bit state.
FLOE_DECL bool cpu_has_avx512() noexcept {
  return cpu_has_pclmul() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
         __builtin_cpu_supports("vpclmulqdq");
}

namespace x86 {

// {C1, C2} in the register's low and high 64 bits.
FLOE_CHECKSUM_TARGET_PCLMUL inline __m128i pair128(fold_pair p) noexcept {
  return _mm_set_epi64x(static_cast<long long>(p.low), static_cast<long long>(p.high));
}

FLOE_CHECKSUM_TARGET_PCLMUL inline __m128i load128(unsigned char const* p) noexcept {
  return _mm_loadu_si128(reinterpret_cast<__m128i const*>(p));
}

// b moved by the distance of k, plus the block `next` found there.
FLOE_CHECKSUM_TARGET_PCLMUL inline __m128i fold128(__m128i b, __m128i k, __m128i next) noexcept {
  return _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(b, k, 0x00), _mm_clmulepi64_si128(b, k, 0x11)), next);
}

// The 16 folded bytes, then the tail, into a zeroed register.
FLOE_CHECKSUM_TARGET_PCLMUL inline std::uint64_t finish(__m128i x, unsigned char const* p, std::size_t n,
                                               tail_fn tail) noexcept {
  unsigned char folded[16];
  _mm_storeu_si128(reinterpret_cast<__m128i*>(folded), x);
  return tail(tail(0, folded, sizeof folded), p, n);
}

// Four 128-bit lanes x0..x3 (consecutive blocks) and the whole blocks after
// them: one 128-bit value, then finish().
FLOE_CHECKSUM_TARGET_PCLMUL inline std::uint64_t merge_and_finish(__m128i x0, __m128i x1, __m128i x2, __m128i x3,
                                                         unsigned char const* p, std::size_t n,
                                                         fold_constants const& k, tail_fn tail) noexcept {
  __m128i const k128 = pair128(k.by128);
  __m128i x = fold128(x0, pair128(k.by384), fold128(x1, pair128(k.by256), fold128(x2, k128, x3)));
  for (; n >= 16; p += 16, n -= 16) x = fold128(x, k128, load128(p));
  return finish(x, p, n, tail);
}

FLOE_CHECKSUM_TARGET_AVX512 inline __m512i load512(unsigned char const* p) noexcept {
  return _mm512_loadu_si512(static_cast<void const*>(p));
}

// pair128 in each of the four 128-bit lanes.
FLOE_CHECKSUM_TARGET_AVX512 inline __m512i pair512(fold_pair p) noexcept {
  auto const hi = static_cast<long long>(p.high);
  auto const lo = static_cast<long long>(p.low);
  return _mm512_set_epi64(lo, hi, lo, hi, lo, hi, lo, hi);
}

FLOE_CHECKSUM_TARGET_AVX512 inline __m512i fold512(__m512i b, __m512i k, __m512i next) noexcept {
  // 0x96: a ^ b ^ c.
  return _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(b, k, 0x00), _mm512_clmulepi64_epi128(b, k, 0x11), next,
                                   0x96);
}

}  // namespace x86

FLOE_DECL FLOE_CHECKSUM_TARGET_PCLMUL std::uint64_t fold_pclmul(std::uint64_t raw, unsigned char const* p, std::size_t n,
                                                       fold_constants const& k, tail_fn tail) noexcept {
  using namespace x86;
  __m128i x0 = _mm_xor_si128(load128(p), _mm_cvtsi64_si128(static_cast<long long>(raw)));
  __m128i x1 = load128(p + 16);
  __m128i x2 = load128(p + 32);
  __m128i x3 = load128(p + 48);
  p += 64;
  n -= 64;
  __m128i const k512 = pair128(k.by512);
  for (; n >= 64; p += 64, n -= 64) {
    x0 = fold128(x0, k512, load128(p));
    x1 = fold128(x1, k512, load128(p + 16));
    x2 = fold128(x2, k512, load128(p + 32));
    x3 = fold128(x3, k512, load128(p + 48));
  }
  return merge_and_finish(x0, x1, x2, x3, p, n, k, tail);
}

FLOE_DECL FLOE_CHECKSUM_TARGET_AVX512 std::uint64_t fold_avx512(std::uint64_t raw, unsigned char const* p, std::size_t n,
                                                       fold_constants const& k, tail_fn tail) noexcept {
  using namespace x86;
  __m512i const init =
      _mm512_inserti32x4(_mm512_setzero_si512(), _mm_cvtsi64_si128(static_cast<long long>(raw)), 0);
  __m512i z0 = _mm512_xor_si512(load512(p), init);
  __m512i z1 = load512(p + 64);
  __m512i z2 = load512(p + 128);
  __m512i z3 = load512(p + 192);
  p += 256;
  n -= 256;
  __m512i const k2048 = pair512(k.by2048);
  for (; n >= 256; p += 256, n -= 256) {
    z0 = fold512(z0, k2048, load512(p));
    z1 = fold512(z1, k2048, load512(p + 64));
    z2 = fold512(z2, k2048, load512(p + 128));
    z3 = fold512(z3, k2048, load512(p + 192));
  }
  // Each lane of z0 is four blocks before the same lane of z1, and so on.
  __m512i const k512 = pair512(k.by512);
  __m512i z = fold512(fold512(fold512(z0, k512, z1), k512, z2), k512, z3);
  for (; n >= 64; p += 64, n -= 64) z = fold512(z, k512, load512(p));
  // Through memory: GCC 12 warns (falsely) about _mm512_extracti32x4_epi32.
  unsigned char lanes[64];
  _mm512_storeu_si512(static_cast<void*>(lanes), z);
  return merge_and_finish(load128(lanes), load128(lanes + 16), load128(lanes + 32), load128(lanes + 48), p, n, k,
                          tail);
}

FLOE_DECL FLOE_CHECKSUM_TARGET_PCLMUL std::uint64_t crc32c_sse42(std::uint64_t raw, unsigned char const* p,
                                                        std::size_t n) noexcept {
  for (; n >= 8; p += 8, n -= 8) {
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    raw = _mm_crc32_u64(raw, v);
  }
  auto r = static_cast<std::uint32_t>(raw);
  for (; n != 0; ++p, --n) r = _mm_crc32_u8(r, *p);
  return r;
}

}  // namespace floe::checksum::detail
#endif
