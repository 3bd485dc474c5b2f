#pragma once
// The three CRCs S3 carries, at memory speed: CRC32 (ISO-HDLC, zlib's),
// CRC32C (Castagnoli) and CRC64NVME (NVMe's CRC-64). All are reflected with
// init and xorout all ones; the value is the finished CRC, as zlib's crc32()
// returns it, and updating continues from a finished value (start from 0):
//
//   std::uint32_t c = checksum::crc32c(0, a.data(), a.size());
//   c = checksum::crc32c(c, b.data(), b.size());   // == crc32c of a || b
//
// The implementation is chosen at run time from what the CPU has (x86-64:
// 512-bit VPCLMULQDQ folding, else 128-bit PCLMULQDQ folding and SSE4.2's
// crc32 instruction, else portable slicing-by-8 tables); each gives the same
// values. use_implementation() forces one, for tests and benchmarks. Every
// function here is thread-safe and allocates nothing.

#include <floe/config.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace floe::checksum {

enum class implementation {
  portable,  ///< slicing-by-8 tables: any CPU
  pclmul,    ///< x86-64 SSE4.2 + PCLMULQDQ, 128-bit registers
  avx512,    ///< x86-64 AVX-512F/VL + VPCLMULQDQ, 512-bit registers
};

/// "portable", "pclmul" or "avx512".
FLOE_DECL std::string_view to_string(implementation i) noexcept;

/// Whether this CPU can run `i` (portable: always).
FLOE_DECL bool supported(implementation i) noexcept;

/// The fastest implementation this CPU supports.
FLOE_DECL implementation best_implementation() noexcept;

/// The implementation the functions below use: best_implementation() until
/// use_implementation() says otherwise.
FLOE_DECL implementation active_implementation() noexcept;

/// Makes every CRC in the process use `i` (e.g. portable, to test the
/// fallback on a machine with SIMD). Returns false, changing nothing, when
/// the CPU does not support `i`.
FLOE_DECL bool use_implementation(implementation i) noexcept;

/// The CRC of the bytes before (`crc`, 0 for none) followed by data[0..size).
FLOE_DECL std::uint32_t crc32(std::uint32_t crc, void const* data, std::size_t size) noexcept;
FLOE_DECL std::uint32_t crc32c(std::uint32_t crc, void const* data, std::size_t size) noexcept;
FLOE_DECL std::uint64_t crc64nvme(std::uint64_t crc, void const* data, std::size_t size) noexcept;

/// The same with a given implementation (which must be supported(); else
/// the portable one runs): for tests and benchmarks.
FLOE_DECL std::uint32_t crc32(std::uint32_t crc, void const* data, std::size_t size, implementation i) noexcept;
FLOE_DECL std::uint32_t crc32c(std::uint32_t crc, void const* data, std::size_t size, implementation i) noexcept;
FLOE_DECL std::uint64_t crc64nvme(std::uint64_t crc, void const* data, std::size_t size, implementation i) noexcept;

inline std::uint32_t crc32(std::string_view s) noexcept { return crc32(0, s.data(), s.size()); }
inline std::uint32_t crc32c(std::string_view s) noexcept { return crc32c(0, s.data(), s.size()); }
inline std::uint64_t crc64nvme(std::string_view s) noexcept { return crc64nvme(0, s.data(), s.size()); }

/// The CRC of A || B from crc(A), crc(B) and the size of B in bytes, in
/// O(log size_b) (x^(8*size_b) mod P by squaring): a whole object's CRC
/// from its parts' CRCs, in order. combine(a, crc(empty) = 0, 0) == a.
FLOE_DECL std::uint32_t crc32_combine(std::uint32_t crc_a, std::uint32_t crc_b, std::uint64_t size_b) noexcept;
FLOE_DECL std::uint32_t crc32c_combine(std::uint32_t crc_a, std::uint32_t crc_b, std::uint64_t size_b) noexcept;
FLOE_DECL std::uint64_t crc64nvme_combine(std::uint64_t crc_a, std::uint64_t crc_b, std::uint64_t size_b) noexcept;

}  // namespace floe::checksum

#if defined(FLOE_HEADER_ONLY)
#include <floe/checksum/impl/crc.ipp>
#endif
