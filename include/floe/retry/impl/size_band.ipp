#pragma once
#include <floe/retry/size_band.hpp>

#include <algorithm>
#include <charconv>

namespace floe::retry {

FLOE_DECL unsigned size_band(std::uint64_t bytes) noexcept {
  unsigned band = 0;
  for (std::uint64_t edge = std::uint64_t{64} << 10; bytes >= edge && band < 8; edge <<= 4) ++band;
  return band;
}

namespace detail {
inline bool parse_u64(std::string_view s, std::uint64_t& v) noexcept {
  if (s.empty()) return false;
  auto const r = std::from_chars(s.data(), s.data() + s.size(), v);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}
}  // namespace detail

FLOE_DECL std::optional<std::uint64_t> range_length(std::string_view range) noexcept {
  constexpr std::string_view unit = "bytes=";
  if (range.substr(0, unit.size()) != unit) return std::nullopt;
  range.remove_prefix(unit.size());
  auto const dash = range.find('-');
  if (dash == std::string_view::npos || range.find(',') != std::string_view::npos) return std::nullopt;
  std::uint64_t first = 0, last = 0;
  if (dash == 0) {  // a suffix: the last n bytes
    if (!detail::parse_u64(range.substr(1), last) || last == 0) return std::nullopt;
    return last;
  }
  if (!detail::parse_u64(range.substr(0, dash), first) || !detail::parse_u64(range.substr(dash + 1), last) ||
      last < first || last == UINT64_MAX)
    return std::nullopt;
  return last - first + 1;
}

namespace detail {
inline std::string size_key(std::string_view host, std::string_view operation) {
  std::string k;
  k.reserve(host.size() + operation.size() + 1);
  k.append(host).push_back('\n');
  k.append(operation);
  return k;
}
}  // namespace detail

FLOE_DECL void size_memory::add(std::string_view host, std::string_view operation, std::uint64_t bytes,
                                time_point now) {
  auto& r = rings_[detail::size_key(host, operation)];
  if (r.s.size() < window_) {
    r.s.push_back({bytes, now});
    return;
  }
  r.s[r.next] = {bytes, now};
  r.next = (r.next + 1) % r.s.size();
}

FLOE_DECL unsigned size_memory::band(std::string_view host, std::string_view operation,
                                     std::optional<std::uint64_t> expected, time_point now) const {
  if (expected) return size_band(*expected);
  auto it = rings_.find(detail::size_key(host, operation));
  if (it == rings_.end()) return 0;
  std::vector<std::uint64_t> v;
  v.reserve(it->second.s.size());
  for (auto const& s : it->second.s)
    if (now - s.at <= max_age_) v.push_back(s.bytes);
  if (v.empty()) return 0;
  auto const mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  return size_band(*mid);
}

}  // namespace floe::retry
