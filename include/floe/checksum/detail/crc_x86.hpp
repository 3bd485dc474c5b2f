#pragma once
// x86-64 CRC kernels, each compiled for its instruction set with a target
// attribute (the rest of floe is built for baseline x86-64) and called only
// after crc.ipp has checked the CPU at run time:
//   pclmul: SSE4.2 + PCLMULQDQ, 128-bit folding with four lanes;
//   avx512: AVX-512F + VPCLMULQDQ, 512-bit folding with four registers.
// CRC32C also uses SSE4.2's crc32 instruction for short inputs and tails.
// Elsewhere (another architecture or compiler) FLOE_CHECKSUM_X86 is 0 and
// only the portable code exists.

#include <floe/config.hpp>
#include <floe/checksum/detail/polynomial.hpp>

#include <cstddef>
#include <cstdint>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define FLOE_CHECKSUM_X86 1
#else
#define FLOE_CHECKSUM_X86 0
#endif

#if FLOE_CHECKSUM_X86
// On the declarations and the definitions alike.
#define FLOE_CHECKSUM_TARGET_PCLMUL __attribute__((target("sse4.2,pclmul")))
#define FLOE_CHECKSUM_TARGET_AVX512 __attribute__((target("sse4.2,pclmul,avx512f,avx512vl,vpclmulqdq")))

namespace floe::checksum::detail {

/// A register update used for what the folding leaves: the last 16 bytes of
/// folded state and the final size % 16 bytes.
using tail_fn = std::uint64_t (*)(std::uint64_t raw, unsigned char const* p, std::size_t n) noexcept;

/// What the CPU (and the OS, for the AVX-512 state) supports.
FLOE_DECL bool cpu_has_pclmul() noexcept;
FLOE_DECL bool cpu_has_avx512() noexcept;

/// Feeds p[0..n) into the raw register `raw` (n >= 64) by 128-bit folding.
FLOE_DECL FLOE_CHECKSUM_TARGET_PCLMUL std::uint64_t fold_pclmul(std::uint64_t raw, unsigned char const* p, std::size_t n,
                                    fold_constants const& k, tail_fn tail) noexcept;

/// The same with 512-bit registers (n >= 256).
FLOE_DECL FLOE_CHECKSUM_TARGET_AVX512 std::uint64_t fold_avx512(std::uint64_t raw, unsigned char const* p, std::size_t n,
                                    fold_constants const& k, tail_fn tail) noexcept;

/// CRC32C with the crc32 instruction, eight bytes at a time (any n).
FLOE_DECL FLOE_CHECKSUM_TARGET_PCLMUL std::uint64_t crc32c_sse42(std::uint64_t raw, unsigned char const* p, std::size_t n) noexcept;

}  // namespace floe::checksum::detail
#endif

#if defined(FLOE_HEADER_ONLY)
#include <floe/checksum/impl/crc_x86.ipp>
#endif
