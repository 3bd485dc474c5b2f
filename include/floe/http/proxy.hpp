#pragma once
// Forward proxies from HTTPS_PROXY / HTTP_PROXY / NO_PROXY (and their
// lower-case forms, which win when both are set). Plain-HTTP requests go to
// an HTTP proxy in absolute form; TLS requests tunnel through CONNECT.

#include <floe/config.hpp>
#include <floe/environment.hpp>
#include <floe/http/url.hpp>
#include <floe/result.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace floe::http {

struct proxy_config {
  std::string http_proxy;   // URL of the proxy for http:// endpoints; empty: none
  std::string https_proxy;  // URL of the proxy for https:// endpoints; empty: none
  std::string no_proxy;     // comma-separated hosts/domains/IPs[:port]; "*" means all

  /// Reads the process environment (lower-case names first, as curl does).
  FLOE_DECL static proxy_config from_env();
  /// The same through an environment lookup (a session's).
  FLOE_DECL static proxy_config from_env(env_lookup const& env);
};

/// The proxy to use for `ep`, if any: nullopt when no proxy is set for the
/// scheme or NO_PROXY matches. A proxy URL that does not parse, or that is
/// not http:// (TLS to the proxy itself is not supported), is an error.
FLOE_DECL result<std::optional<url>> select_proxy(proxy_config const& cfg, endpoint const& ep);

/// Whether a NO_PROXY list exempts `host`:`port`. An entry matches the host
/// itself or any subdomain ("example.com" and ".example.com" both match
/// "s3.example.com"); an entry with ":port" matches that port only; "*"
/// matches everything. Case-insensitive; IPv6 entries may be bracketed.
FLOE_DECL bool no_proxy_matches(std::string_view no_proxy, std::string_view host, std::uint16_t port) noexcept;

/// "Basic base64(userinfo)" for Proxy-Authorization, the userinfo decoded from
/// percent-encoding first. Empty userinfo gives an empty string.
FLOE_DECL std::string proxy_authorization(std::string_view userinfo);

}  // namespace floe::http

#if defined(FLOE_HEADER_ONLY)
#include <floe/http/impl/proxy.ipp>
#endif
