#pragma once
// Endpoints and URLs: what the connection pool is keyed on.

#include <floe/config.hpp>
#include <floe/result.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace floe::http {

/// Where a request goes: scheme, host, port. One connection pool each.
/// `host` is kept without IPv6 brackets.
struct endpoint {
  bool tls = true;
  std::string host;
  std::uint16_t port = 443;

  std::uint16_t default_port() const noexcept { return tls ? 443 : 80; }
  /// The Host header value: host, or host:port when the port is not the default.
  FLOE_DECL std::string host_header() const;
  friend bool operator==(endpoint const&, endpoint const&) = default;
};

/// A parsed absolute URL. `target` is the origin-form path and query as
/// given ("/" when empty), not decoded or normalised.
struct url {
  endpoint ep;
  std::string userinfo;  // "user:pass" before '@', still percent-encoded
  std::string target;
};

/// Parses "http[s]://[userinfo@]host[:port][/path][?query]". Hosts may be
/// names, IPv4 or bracketed IPv6 literals. Other schemes, an empty host, a bad
/// port or whitespace give errc::invalid_argument.
FLOE_DECL result<url> parse_url(std::string_view s);

/// Whether `host` is an IPv4 or IPv6 literal (no brackets).
FLOE_DECL bool is_ip_literal(std::string_view host) noexcept;

}  // namespace floe::http

#if defined(FLOE_HEADER_ONLY)
#include <floe/http/impl/url.ipp>
#endif
