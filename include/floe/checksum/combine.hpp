#pragma once
// A multipart object's checksum from its parts' checksums, both ways S3
// has:
//   full object (x-amz-checksum-type: FULL_OBJECT, the CRCs): the CRC of the
//     whole object's bytes, combined from each part's CRC and size, so that
//     it can be sent on CompleteMultipartUpload and compared with a
//     single-part upload's or a download's value;
//   composite (COMPOSITE, all but CRC64NVME): the checksum, by the same
//     algorithm, of the parts' digests concatenated in part order, in
//     base64 with "-N" appended (N = the number of parts).

#include <floe/config.hpp>
#include <floe/checksum/algorithm.hpp>
#include <floe/checksum/hasher.hpp>
#include <floe/result.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace floe::checksum {

/// The CRC of A || B from the CRC digests of A and B (same CRC algorithm)
/// and the size of B; invalid_argument when the algorithms differ or are
/// not CRCs.
FLOE_DECL result<digest> combine(digest const& a, digest const& b, std::uint64_t size_b);

/// The full-object CRC of parts added in order.
class full_object_crc {
 public:
  /// `a` must be a CRC (is_crc); otherwise every add_part fails.
  explicit full_object_crc(algorithm a) noexcept : acc_(digest::of_crc(a, 0)) {}

  /// Appends a part: its CRC and its size in bytes. invalid_argument when
  /// the part's algorithm is not this one, or not a CRC.
  FLOE_DECL result<void> add_part(digest const& part, std::uint64_t part_size);

  /// The same from the part's value as S3 carries it (base64).
  FLOE_DECL result<void> add_part(std::string_view part_base64, std::uint64_t part_size);

  /// The CRC of the parts so far (of nothing: 0).
  digest const& value() const noexcept { return acc_; }
  std::uint64_t size() const noexcept { return size_; }

 private:
  digest acc_;
  std::uint64_t size_ = 0;
};

/// S3's composite checksum of parts added in order.
class composite {
 public:
  explicit composite(algorithm a) noexcept : h_(a) {}

  /// Appends a part's digest; invalid_argument when its algorithm is not
  /// this one.
  FLOE_DECL result<void> add_part(digest const& part);

  /// The same from the part's value as S3 carries it (base64).
  FLOE_DECL result<void> add_part(std::string_view part_base64);

  std::size_t parts() const noexcept { return parts_; }

  /// "<base64>-<N>", as S3 returns it for the object (with no part added:
  /// the checksum of nothing and "-0", which S3 never returns).
  FLOE_DECL std::string value() const;

 private:
  hasher h_;
  std::size_t parts_ = 0;
};

/// A composite value split at its "-N": the base64 and N (N >= 1); nullopt
/// when `value` has no such suffix (a full-object or single-part value).
struct composite_value {
  std::string_view base64;
  std::size_t parts = 0;
};
FLOE_DECL std::optional<composite_value> split_composite(std::string_view value) noexcept;

}  // namespace floe::checksum

#if defined(FLOE_HEADER_ONLY)
#include <floe/checksum/impl/combine.ipp>
#endif
