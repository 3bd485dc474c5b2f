#pragma once
#include <floe/checksum/combine.hpp>

#include <floe/checksum/crc.hpp>

namespace floe::checksum {

namespace detail {
inline error algorithm_mismatch(char const* what, algorithm want, algorithm got) {
  std::string msg = what;
  msg += ": a ";
  msg += s3_name(got);
  msg += " value where ";
  msg += s3_name(want);
  msg += " was expected";
  if (!is_crc(want)) {
    msg += " (";
    msg += s3_name(want);
    msg += " is not a CRC: its values do not combine)";
  }
  return error(errc::invalid_argument, std::move(msg));
}
}  // namespace detail

FLOE_DECL result<digest> combine(digest const& a, digest const& b, std::uint64_t size_b) {
  if (!is_crc(a.alg) || b.alg != a.alg) return detail::algorithm_mismatch("checksum combine", a.alg, b.alg);
  std::uint64_t v = 0;
  switch (a.alg) {
    case algorithm::crc32:
      v = crc32_combine(static_cast<std::uint32_t>(a.crc()), static_cast<std::uint32_t>(b.crc()), size_b);
      break;
    case algorithm::crc32c:
      v = crc32c_combine(static_cast<std::uint32_t>(a.crc()), static_cast<std::uint32_t>(b.crc()), size_b);
      break;
    default: v = crc64nvme_combine(a.crc(), b.crc(), size_b); break;
  }
  return digest::of_crc(a.alg, v);
}

FLOE_DECL result<void> full_object_crc::add_part(digest const& part, std::uint64_t part_size) {
  auto r = combine(acc_, part, part_size);
  if (!r) return r.error();
  acc_ = *r;
  size_ += part_size;
  return {};
}

FLOE_DECL result<void> full_object_crc::add_part(std::string_view part_base64, std::uint64_t part_size) {
  auto d = parse_digest(acc_.alg, part_base64);
  if (!d) return d.error();
  return add_part(*d, part_size);
}

FLOE_DECL result<void> composite::add_part(digest const& part) {
  if (part.alg != h_.alg()) return detail::algorithm_mismatch("composite checksum part", h_.alg(), part.alg);
  h_.update(part.bytes().data(), part.size());
  ++parts_;
  return {};
}

FLOE_DECL result<void> composite::add_part(std::string_view part_base64) {
  auto d = parse_digest(h_.alg(), part_base64);
  if (!d) return d.error();
  return add_part(*d);
}

FLOE_DECL std::string composite::value() const {
  std::string s = h_.value().base64();
  s += '-';
  s += std::to_string(parts_);
  return s;
}

FLOE_DECL std::optional<composite_value> split_composite(std::string_view value) noexcept {
  auto const dash = value.rfind('-');
  if (dash == std::string_view::npos || dash + 1 == value.size()) return std::nullopt;
  std::size_t n = 0;
  for (char c : value.substr(dash + 1)) {
    if (c < '0' || c > '9' || n > 100000) return std::nullopt;  // S3 allows 10,000 parts
    n = n * 10 + static_cast<std::size_t>(c - '0');
  }
  if (n == 0) return std::nullopt;
  return composite_value{value.substr(0, dash), n};
}

}  // namespace floe::checksum
