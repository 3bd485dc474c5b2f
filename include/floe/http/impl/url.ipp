#pragma once
#include <floe/http/url.hpp>

#include <boost/asio/ip/address.hpp>

#include <charconv>

namespace floe::http {

FLOE_DECL std::string endpoint::host_header() const {
  std::string s;
  bool const v6 = host.find(':') != std::string::npos;
  s.reserve(host.size() + 8);
  if (v6) s += '[';
  s += host;
  if (v6) s += ']';
  if (port != default_port()) {
    s += ':';
    s += std::to_string(port);
  }
  return s;
}

FLOE_DECL bool is_ip_literal(std::string_view host) noexcept {
  boost::system::error_code ec;
  (void)boost::asio::ip::make_address(std::string(host), ec);
  return !ec;
}

FLOE_DECL result<url> parse_url(std::string_view s) {
  auto bad = [&](char const* why) { return error(errc::invalid_argument, std::string(why) + ": " + std::string(s)); };
  url u;
  for (char c : s)
    if (static_cast<unsigned char>(c) <= ' ' || c == 0x7f) return bad("URL with whitespace or control characters");
  auto const sep = s.find("://");
  if (sep == std::string_view::npos) return bad("URL without a scheme");
  std::string scheme(s.substr(0, sep));
  for (auto& c : scheme) c = static_cast<char>((c >= 'A' && c <= 'Z') ? c + 32 : c);
  if (scheme == "https")
    u.ep.tls = true;
  else if (scheme == "http")
    u.ep.tls = false;
  else
    return bad("URL scheme is neither http nor https");
  auto rest = s.substr(sep + 3);
  auto const path_at = rest.find_first_of("/?#");
  auto authority = rest.substr(0, path_at);
  auto tail = path_at == std::string_view::npos ? std::string_view{} : rest.substr(path_at);
  if (auto const f = tail.find('#'); f != std::string_view::npos) tail = tail.substr(0, f);
  if (auto const at = authority.rfind('@'); at != std::string_view::npos) {
    u.userinfo = std::string(authority.substr(0, at));
    authority = authority.substr(at + 1);
  }
  std::string_view host, port;
  if (!authority.empty() && authority.front() == '[') {
    auto const close = authority.find(']');
    if (close == std::string_view::npos) return bad("URL with an unclosed IPv6 bracket");
    host = authority.substr(1, close - 1);
    auto after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return bad("URL with junk after an IPv6 literal");
      port = after.substr(1);
    }
    if (!is_ip_literal(host)) return bad("URL with a bad IPv6 literal");
  } else {
    auto const colon = authority.find(':');
    host = authority.substr(0, colon);
    if (colon != std::string_view::npos) port = authority.substr(colon + 1);
  }
  if (host.empty()) return bad("URL without a host");
  u.ep.host = std::string(host);
  for (auto& c : u.ep.host) c = static_cast<char>((c >= 'A' && c <= 'Z') ? c + 32 : c);
  u.ep.port = u.ep.default_port();
  if (!port.empty()) {
    unsigned v = 0;
    auto [p, ec] = std::from_chars(port.data(), port.data() + port.size(), v);
    if (ec != std::errc{} || p != port.data() + port.size() || v == 0 || v > 65535) return bad("URL with a bad port");
    u.ep.port = static_cast<std::uint16_t>(v);
  }
  if (tail.empty() || tail.front() == '?')
    u.target = "/" + std::string(tail);
  else
    u.target = std::string(tail);
  return u;
}

}  // namespace floe::http
