#pragma once
#include <floe/sigv4/canonical.hpp>
#include <floe/detail/sha256.hpp>
#include <floe/sigv4/uri_encode.hpp>

#include <algorithm>

namespace floe::sigv4 {

FLOE_DECL std::array<char, 16> format_amz_date(std::chrono::system_clock::time_point t) noexcept {
  using namespace std::chrono;
  auto const day = floor<days>(t);
  year_month_day const ymd{day};
  hh_mm_ss const hms{floor<seconds>(t - day)};
  std::array<char, 16> out{};
  auto put = [&out](std::size_t at, unsigned v, std::size_t width) {
    for (std::size_t i = width; i-- > 0;) {
      out[at + i] = static_cast<char>('0' + v % 10);
      v /= 10;
    }
  };
  put(0, static_cast<unsigned>(static_cast<int>(ymd.year())), 4);
  put(4, static_cast<unsigned>(ymd.month()), 2);
  put(6, static_cast<unsigned>(ymd.day()), 2);
  out[8] = 'T';
  put(9, static_cast<unsigned>(hms.hours().count()), 2);
  put(11, static_cast<unsigned>(hms.minutes().count()), 2);
  put(13, static_cast<unsigned>(hms.seconds().count()), 2);
  out[15] = 'Z';
  return out;
}

FLOE_DECL void append_canonical_uri(std::string& out, std::string_view wire_path, path_rules rules) {
  if (wire_path.empty()) {
    out += '/';
    return;
  }
  switch (rules) {
    case path_rules::s3:
      out += wire_path;
      return;
    case path_rules::generic_unnormalized:
      uri_encode_append(out, wire_path, false);
      return;
    case path_rules::generic:
      break;
  }
  // Segments are written straight into `out`; ".." cuts the last one off
  // again, so no stack of segments is needed.
  std::size_t const base = out.size();
  std::size_t pos = 0;
  while (pos <= wire_path.size()) {
    std::size_t end = wire_path.find('/', pos);
    if (end == std::string_view::npos) end = wire_path.size();
    std::string_view const seg = wire_path.substr(pos, end - pos);
    pos = end + 1;
    if (seg.empty() || seg == ".") continue;
    if (seg == "..") {
      std::size_t const cut = out.rfind('/');
      out.resize(cut == std::string::npos || cut < base ? base : cut);
      continue;
    }
    out += '/';
    uri_encode_append(out, seg, true);
  }
  if (out.size() == base) {
    out += '/';
  } else if (wire_path.back() == '/') {
    out += '/';
  }
}

namespace detail {
constexpr bool is_space(char c) noexcept {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}
}  // namespace detail

FLOE_DECL void append_canonical_header_value(std::string& out, std::string_view value) {
  // Most values have no space to trim or fold: one append.
  if (std::none_of(value.begin(), value.end(), [](char c) {
        return detail::is_space(c) && c != ' ';
      }) &&
      (value.empty() || (value.front() != ' ' && value.back() != ' ')) && value.find("  ") == std::string_view::npos) {
    out += value;
    return;
  }
  // Otherwise written through a pointer into room for the whole value (the
  // result is never longer), then cut to size.
  std::size_t const at = out.size();
  out.resize(at + value.size());
  char* const begin = out.data() + at;
  char* w = begin;
  bool pending_space = false;
  bool any = false;
  for (char c : value) {
    if (detail::is_space(c)) {
      pending_space = any;
      continue;
    }
    if (pending_space) *w++ = ' ';
    pending_space = false;
    any = true;
    *w++ = c;
  }
  out.resize(at + static_cast<std::size_t>(w - begin));
}

FLOE_DECL void append_canonical_query(std::string& out, std::span<query_param_view> params) {
  std::sort(params.begin(), params.end(), [](query_param_view const& a, query_param_view const& b) {
    if (a.name != b.name) return a.name < b.name;
    return a.value < b.value;
  });
  bool first = true;
  for (auto const& p : params) {
    if (!first) out += '&';
    first = false;
    out += p.name;
    out += '=';
    out += p.value;
  }
}

FLOE_DECL void append_string_to_sign(std::string& out, std::string_view amz_date, std::string_view region,
                                     std::string_view service, std::string_view canonical_request) {
  out += algorithm;
  out += '\n';
  out += amz_date;
  out += '\n';
  out += amz_date.substr(0, 8);
  out += '/';
  out += region;
  out += '/';
  out += service;
  out += "/aws4_request\n";
  char hex[64];
  floe::detail::hex_lower(floe::detail::sha256::of(canonical_request), hex);
  out.append(hex, sizeof hex);
}

}  // namespace floe::sigv4
