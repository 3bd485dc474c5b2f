#pragma once
// The checksum algorithms S3 offers, their names on the wire, and a checksum
// value as S3 carries it (base64 of the big-endian digest).
//
//   header_name(algorithm::crc32)  "x-amz-checksum-crc32"
//   s3_name(algorithm::crc32)      "CRC32": x-amz-sdk-checksum-algorithm,
//                                  ChecksumAlgorithm, the CLI's
//                                  --checksum-algorithm
//   parse_algorithm("crc64nvme")   algorithm::crc64nvme (any case)

#include <floe/config.hpp>
#include <floe/result.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace floe::checksum {

enum class algorithm { crc32, crc32c, crc64nvme, sha1, sha256 };

inline constexpr std::array<algorithm, 5> all_algorithms = {algorithm::crc32, algorithm::crc32c,
                                                             algorithm::crc64nvme, algorithm::sha1,
                                                             algorithm::sha256};

/// "CRC32", "CRC32C", "CRC64NVME", "SHA1", "SHA256".
FLOE_DECL std::string_view s3_name(algorithm a) noexcept;

/// "x-amz-checksum-crc32", ... "x-amz-checksum-sha256".
FLOE_DECL std::string_view header_name(algorithm a) noexcept;

/// The digest's size in bytes: 4, 4, 8, 20, 32.
FLOE_DECL std::size_t digest_size(algorithm a) noexcept;

/// CRC32, CRC32C and CRC64NVME: the ones whose part values combine into a
/// whole object's value (combine.hpp).
constexpr bool is_crc(algorithm a) noexcept {
  return a == algorithm::crc32 || a == algorithm::crc32c || a == algorithm::crc64nvme;
}

/// An S3 name in any case ("crc32c", "Sha256"); otherwise invalid_argument
/// naming the value and the names accepted.
FLOE_DECL result<algorithm> parse_algorithm(std::string_view name);

/// The algorithm of an `x-amz-checksum-<alg>` header name in any case;
/// nullopt for any other header (x-amz-checksum-mode, x-amz-checksum-type).
FLOE_DECL std::optional<algorithm> algorithm_of_header(std::string_view header) noexcept;

/// How S3 checksums a multipart object (x-amz-checksum-type).
enum class checksum_type {
  full_object,  ///< "FULL_OBJECT": the checksum of the whole object's bytes (CRCs only)
  composite,    ///< "COMPOSITE": the checksum of the parts' checksums, "-N" appended
};

/// "FULL_OBJECT" or "COMPOSITE".
FLOE_DECL std::string_view s3_name(checksum_type t) noexcept;

/// Either name in any case; otherwise invalid_argument naming the value.
FLOE_DECL result<checksum_type> parse_checksum_type(std::string_view name);

/// Whether S3 takes `a` with `t`: FULL_OBJECT for the CRCs, COMPOSITE for all
/// but CRC64NVME.
constexpr bool supports(algorithm a, checksum_type t) noexcept {
  return t == checksum_type::full_object ? is_crc(a) : a != algorithm::crc64nvme;
}

/// A checksum value: the digest's bytes, big-endian (a CRC's most
/// significant byte first), as S3 carries them base64-encoded.
struct digest {
  algorithm alg = algorithm::crc32;
  std::array<unsigned char, 32> storage{};  // the first size() are used, the rest zero

  std::size_t size() const noexcept { return digest_size(alg); }
  std::span<unsigned char const> bytes() const noexcept { return {storage.data(), size()}; }

  /// The value as S3 carries it, e.g. "yZRlqg==" (the CRC32C of "hello world").
  FLOE_DECL std::string base64() const;

  /// A CRC's value as a number (0 for SHA-1/SHA-256).
  FLOE_DECL std::uint64_t crc() const noexcept;

  /// The digest of a CRC value (a must be a CRC; the value is truncated to
  /// its width).
  FLOE_DECL static digest of_crc(algorithm a, std::uint64_t crc) noexcept;

  friend bool operator==(digest const&, digest const&) = default;
};

/// A value as S3 carries it: invalid_argument naming the algorithm and the
/// value when `base64` is not the canonical padded base64 of exactly
/// digest_size(a) bytes.
FLOE_DECL result<digest> parse_digest(algorithm a, std::string_view base64);

}  // namespace floe::checksum

#if defined(FLOE_HEADER_ONLY)
#include <floe/checksum/impl/algorithm.ipp>
#endif
