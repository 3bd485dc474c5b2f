#pragma once
#include <floe/checksum/algorithm.hpp>

#include <floe/checksum/base64.hpp>

namespace floe::checksum {

namespace detail {
constexpr bool iequals(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}
}  // namespace detail

FLOE_DECL std::string_view s3_name(algorithm a) noexcept {
  switch (a) {
    case algorithm::crc32: return "CRC32";
    case algorithm::crc32c: return "CRC32C";
    case algorithm::crc64nvme: return "CRC64NVME";
    case algorithm::sha1: return "SHA1";
    case algorithm::sha256: return "SHA256";
  }
  return "UNKNOWN";
}

FLOE_DECL std::string_view header_name(algorithm a) noexcept {
  switch (a) {
    case algorithm::crc32: return "x-amz-checksum-crc32";
    case algorithm::crc32c: return "x-amz-checksum-crc32c";
    case algorithm::crc64nvme: return "x-amz-checksum-crc64nvme";
    case algorithm::sha1: return "x-amz-checksum-sha1";
    case algorithm::sha256: return "x-amz-checksum-sha256";
  }
  return "x-amz-checksum-unknown";
}

FLOE_DECL std::size_t digest_size(algorithm a) noexcept {
  switch (a) {
    case algorithm::crc32:
    case algorithm::crc32c: return 4;
    case algorithm::crc64nvme: return 8;
    case algorithm::sha1: return 20;
    case algorithm::sha256: return 32;
  }
  return 0;
}

FLOE_DECL result<algorithm> parse_algorithm(std::string_view name) {
  for (algorithm a : all_algorithms)
    if (detail::iequals(name, s3_name(a))) return a;
  std::string msg = "unknown checksum algorithm '";
  msg += name;
  msg += "' (expected CRC32, CRC32C, CRC64NVME, SHA1 or SHA256)";
  return error(errc::invalid_argument, std::move(msg));
}

FLOE_DECL std::optional<algorithm> algorithm_of_header(std::string_view header) noexcept {
  for (algorithm a : all_algorithms)
    if (detail::iequals(header, header_name(a))) return a;
  return std::nullopt;
}

FLOE_DECL std::string_view s3_name(checksum_type t) noexcept {
  return t == checksum_type::full_object ? "FULL_OBJECT" : "COMPOSITE";
}

FLOE_DECL result<checksum_type> parse_checksum_type(std::string_view name) {
  for (checksum_type t : {checksum_type::full_object, checksum_type::composite})
    if (detail::iequals(name, s3_name(t))) return t;
  std::string msg = "unknown checksum type '";
  msg += name;
  msg += "' (expected FULL_OBJECT or COMPOSITE)";
  return error(errc::invalid_argument, std::move(msg));
}

FLOE_DECL std::string digest::base64() const { return base64_encode(bytes()); }

FLOE_DECL std::uint64_t digest::crc() const noexcept {
  if (!is_crc(alg)) return 0;
  std::uint64_t v = 0;
  for (unsigned char b : bytes()) v = (v << 8) | b;
  return v;
}

FLOE_DECL digest digest::of_crc(algorithm a, std::uint64_t crc) noexcept {
  digest d;
  d.alg = a;
  std::size_t const n = d.size();
  for (std::size_t i = 0; i < n; ++i) d.storage[i] = static_cast<unsigned char>(crc >> (8 * (n - 1 - i)));
  return d;
}

FLOE_DECL result<digest> parse_digest(algorithm a, std::string_view base64) {
  digest d;
  d.alg = a;
  auto const n = base64_decode(base64, d.storage);
  if (!n || *n != d.size()) {
    std::string msg = "checksum value '";
    msg += base64;
    msg += "' is not a ";
    msg += s3_name(a);
    msg += " value (the base64 of ";
    msg += std::to_string(d.size());
    msg += " bytes)";
    return error(errc::invalid_argument, std::move(msg));
  }
  return d;
}

}  // namespace floe::checksum
