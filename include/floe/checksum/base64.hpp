#pragma once
// Base64 (RFC 4648, standard alphabet, '=' padding) as S3 carries checksum
// values: `x-amz-checksum-*`, `Content-MD5`, the <Checksum*> elements.

#include <floe/config.hpp>

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace floe::checksum {

/// Appends the padded base64 of `bytes` to `out`.
FLOE_DECL void base64_append(std::string& out, std::span<unsigned char const> bytes);

inline std::string base64_encode(std::span<unsigned char const> bytes) {
  std::string s;
  base64_append(s, bytes);
  return s;
}

/// Decodes padded base64 into `out`: the number of bytes written, or nullopt
/// when `in` is not canonical padded base64 (a length not a multiple of 4,
/// a byte outside the alphabet, misplaced '=', non-zero bits in the last
/// character's unused low bits) or decodes to more than out.size() bytes.
FLOE_DECL std::optional<std::size_t> base64_decode(std::string_view in, std::span<unsigned char> out) noexcept;

}  // namespace floe::checksum

#if defined(FLOE_HEADER_ONLY)
#include <floe/checksum/impl/base64.ipp>
#endif
