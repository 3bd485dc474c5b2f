#pragma once
#include <floe/endpoints/endpoint.hpp>

#include <algorithm>
#include <charconv>

namespace floe::endpoints {

namespace detail {

inline bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }
inline bool is_lower_alnum(char c) noexcept { return (c >= 'a' && c <= 'z') || is_digit(c); }

// A value quoted for a message: control, non-ASCII and backslash bytes as \xNN,
// cut after 300 bytes (as credentials::detail::printable writes names).
inline std::string quoted(std::string_view s) {
  static constexpr char hex[] = "0123456789ABCDEF";
  std::string out = "'";
  std::size_t const n = s.size() < 300 ? s.size() : 300;
  for (std::size_t i = 0; i < n; ++i) {
    auto const u = static_cast<unsigned char>(s[i]);
    if (u >= 0x20 && u < 0x7f && u != '\\') {
      out += static_cast<char>(u);
    } else {
      out += "\\x";
      out += hex[u >> 4];
      out += hex[u & 15];
    }
  }
  if (n < s.size()) out += "...";
  out += "'";
  return out;
}

FLOE_DECL bool is_ipv4(std::string_view s) noexcept {
  int parts = 0;
  std::size_t i = 0;
  while (i <= s.size()) {
    std::size_t j = i;
    int v = 0;
    while (j < s.size() && is_digit(s[j])) {
      v = v * 10 + (s[j] - '0');
      if (v > 255 || j - i >= 3) return false;
      ++j;
    }
    if (j == i) return false;
    ++parts;
    if (j == s.size()) break;
    if (s[j] != '.') return false;
    i = j + 1;
  }
  return parts == 4;
}

FLOE_DECL void authority_into(std::string& a, std::string_view host, std::uint16_t port, bool https) {
  a.clear();
  bool const v6 = host.find(':') != std::string_view::npos;
  if (v6) a += '[';
  a += host;
  if (v6) a += ']';
  if (port != (https ? 443 : 80)) {
    char digits[8];
    auto const end = std::to_chars(digits, digits + sizeof digits, port).ptr;
    a += ':';
    a.append(digits, end);
  }
}

}  // namespace detail

FLOE_DECL std::string endpoint::authority() const {
  std::string a;
  detail::authority_into(a, host, port, is_https());
  return a;
}

FLOE_DECL std::string endpoint::url() const { return scheme + "://" + authority() + base_path; }

FLOE_DECL result<endpoint> parse_endpoint_url(std::string_view url, std::string_view what) {
  auto bad = [&](std::string_view why) {
    return error(errc::invalid_argument, std::string(what) + " " + detail::quoted(url) + ": " + std::string(why));
  };
  endpoint ep;
  auto sep = url.find("://");
  if (sep == std::string_view::npos) return bad("expected scheme://host[:port][/path]");
  for (char c : url.substr(0, sep)) ep.scheme += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  if (ep.scheme != "http" && ep.scheme != "https") return bad("the scheme must be http or https");
  std::string_view rest = url.substr(sep + 3);
  if (rest.find_first_of("?#") != std::string_view::npos) return bad("a query or fragment is not allowed");
  auto slash = rest.find('/');
  std::string_view auth = rest.substr(0, slash);
  std::string_view path = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
  if (auth.find('@') != std::string_view::npos) return bad("user info is not allowed");
  if (auth.empty()) return bad("no host");
  std::string_view port_text;
  if (auth.front() == '[') {
    auto close = auth.find(']');
    if (close == std::string_view::npos) return bad("unterminated IPv6 literal");
    std::string_view h = auth.substr(1, close - 1);
    if (h.empty()) return bad("empty IPv6 literal");
    for (char c : h)
      if (!(detail::is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == ':' || c == '.'))
        return bad("invalid IPv6 literal");
    ep.host = std::string(h);
    ep.host_is_ip = true;
    std::string_view after = auth.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return bad("unexpected text after the IPv6 literal");
      port_text = after.substr(1);
      if (port_text.empty()) return bad("empty port");
    }
  } else {
    auto colon = auth.find(':');
    std::string_view h = auth.substr(0, colon);
    if (colon != std::string_view::npos) {
      port_text = auth.substr(colon + 1);
      if (port_text.empty()) return bad("empty port");
      if (port_text.find(':') != std::string_view::npos) return bad("an IPv6 host must be in brackets");
    }
    if (h.empty()) return bad("no host");
    for (char c : h) {
      bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || detail::is_digit(c) || c == '-' || c == '.' || c == '_';
      if (!ok) return bad("invalid character in the host name");
      ep.host += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    }
    ep.host_is_ip = detail::is_ipv4(ep.host);
  }
  ep.port = ep.is_https() ? 443 : 80;
  if (!port_text.empty()) {
    unsigned long p = 0;
    for (char c : port_text) {
      if (!detail::is_digit(c) || p > 65535) return bad("invalid port");
      p = p * 10 + static_cast<unsigned long>(c - '0');
    }
    if (p == 0 || p > 65535) return bad("port out of range");
    ep.port = static_cast<std::uint16_t>(p);
  }
  for (char c : path)
    if (static_cast<unsigned char>(c) <= 0x20 || static_cast<unsigned char>(c) >= 0x7f)
      return bad("the path must be percent-encoded (no spaces, control or non-ASCII bytes)");
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  ep.base_path = std::string(path);
  return ep;
}

FLOE_DECL std::string_view partition_dns_suffix(std::string_view region) noexcept {
  auto starts = [&](std::string_view p) { return region.substr(0, p.size()) == p; };
  if (starts("cn-")) return "amazonaws.com.cn";
  if (starts("eusc-")) return "amazonaws.eu";
  if (starts("us-isob-")) return "sc2s.sgov.gov";
  if (starts("us-isof-")) return "csp.hci.ic.gov";
  if (starts("us-iso-")) return "c2s.ic.gov";
  if (starts("eu-isoe-")) return "cloud.adc-e.uk";
  return "amazonaws.com";
}

FLOE_DECL bool is_valid_aws_region(std::string_view r) noexcept {
  if (r.empty() || r.size() > 63 || r.front() == '-' || r.back() == '-') return false;
  return std::all_of(r.begin(), r.end(), [](char c) { return detail::is_lower_alnum(c) || c == '-'; });
}

}  // namespace floe::endpoints
