#pragma once
#include <floe/http/proxy.hpp>

#include <cstdlib>

namespace floe::http {

namespace detail {
inline std::string env_either(env_lookup const& env, char const* lower, char const* upper) {
  if (auto v = non_empty(env, lower)) return std::move(*v);
  if (auto v = non_empty(env, upper)) return std::move(*v);
  return {};
}
inline char ascii_lower(char c) noexcept { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }
inline bool iends_with(std::string_view s, std::string_view suffix) noexcept {
  if (suffix.size() > s.size()) return false;
  for (std::size_t i = 0; i < suffix.size(); ++i)
    if (ascii_lower(s[s.size() - suffix.size() + i]) != ascii_lower(suffix[i])) return false;
  return true;
}
inline int hex_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  c = ascii_lower(c);
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}
}  // namespace detail

FLOE_DECL proxy_config proxy_config::from_env() { return from_env(process_environment()); }

FLOE_DECL proxy_config proxy_config::from_env(env_lookup const& env) {
  proxy_config c;
  // curl reads only lower-case http_proxy (a CGI program can receive
  // HTTP_PROXY from a request header); floe is never a CGI program and
  // containers commonly set the upper-case form, so both are read.
  c.http_proxy = detail::env_either(env, "http_proxy", "HTTP_PROXY");
  c.https_proxy = detail::env_either(env, "https_proxy", "HTTPS_PROXY");
  c.no_proxy = detail::env_either(env, "no_proxy", "NO_PROXY");
  return c;
}

FLOE_DECL bool no_proxy_matches(std::string_view list, std::string_view host, std::uint16_t port) noexcept {
  while (!list.empty()) {
    auto const comma = list.find(',');
    auto item = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
    while (!item.empty() && (item.front() == ' ' || item.front() == '\t')) item.remove_prefix(1);
    while (!item.empty() && (item.back() == ' ' || item.back() == '\t')) item.remove_suffix(1);
    if (item.empty()) continue;
    if (item == "*") return true;
    // Split an optional port: "[v6]:p", "name:p"; a bare v6 literal has several ':'.
    std::string_view name = item, want_port;
    if (item.front() == '[') {
      auto const close = item.find(']');
      if (close == std::string_view::npos) continue;
      name = item.substr(1, close - 1);
      if (close + 1 < item.size() && item[close + 1] == ':') want_port = item.substr(close + 2);
    } else if (auto const c = item.find(':'); c != std::string_view::npos && item.find(':', c + 1) == std::string_view::npos) {
      name = item.substr(0, c);
      want_port = item.substr(c + 1);
    }
    if (!want_port.empty()) {
      unsigned v = 0;
      bool ok = true;
      for (char ch : want_port) {
        if (ch < '0' || ch > '9') { ok = false; break; }
        v = v * 10 + static_cast<unsigned>(ch - '0');
        if (v > 65535) { ok = false; break; }
      }
      if (!ok || v != port) continue;
    }
    if (!name.empty() && name.front() == '.') name.remove_prefix(1);
    if (name.empty()) continue;
    if (host.size() == name.size() && detail::iends_with(host, name)) return true;
    if (host.size() > name.size() && detail::iends_with(host, name) && host[host.size() - name.size() - 1] == '.')
      return true;
  }
  return false;
}

FLOE_DECL result<std::optional<url>> select_proxy(proxy_config const& cfg, endpoint const& ep) {
  std::string const& p = ep.tls ? cfg.https_proxy : cfg.http_proxy;
  if (p.empty() || no_proxy_matches(cfg.no_proxy, ep.host, ep.port)) return std::optional<url>{};
  // "host:port" without a scheme means http://host:port.
  auto parsed = parse_url(p.find("://") == std::string::npos ? "http://" + p : p);
  if (!parsed) return parsed.error();
  if (parsed->ep.tls) return error(errc::invalid_argument, "an https:// proxy URL is not supported; use http://");
  return std::optional<url>{std::move(*parsed)};
}

FLOE_DECL std::string proxy_authorization(std::string_view userinfo) {
  if (userinfo.empty()) return {};
  std::string raw;
  raw.reserve(userinfo.size());
  for (std::size_t i = 0; i < userinfo.size(); ++i) {
    if (userinfo[i] == '%' && i + 2 < userinfo.size() && detail::hex_value(userinfo[i + 1]) >= 0 &&
        detail::hex_value(userinfo[i + 2]) >= 0) {
      raw += static_cast<char>(detail::hex_value(userinfo[i + 1]) * 16 + detail::hex_value(userinfo[i + 2]));
      i += 2;
    } else {
      raw += userinfo[i];
    }
  }
  static constexpr char tbl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out = "Basic ";
  std::size_t i = 0;
  for (; i + 3 <= raw.size(); i += 3) {
    auto const n = (static_cast<unsigned char>(raw[i]) << 16) | (static_cast<unsigned char>(raw[i + 1]) << 8) |
                   static_cast<unsigned char>(raw[i + 2]);
    out += tbl[(n >> 18) & 63];
    out += tbl[(n >> 12) & 63];
    out += tbl[(n >> 6) & 63];
    out += tbl[n & 63];
  }
  if (auto const left = raw.size() - i; left > 0) {
    unsigned n = static_cast<unsigned char>(raw[i]) << 16;
    if (left == 2) n |= static_cast<unsigned char>(raw[i + 1]) << 8;
    out += tbl[(n >> 18) & 63];
    out += tbl[(n >> 12) & 63];
    out += left == 2 ? tbl[(n >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

}  // namespace floe::http
