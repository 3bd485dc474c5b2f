#pragma once
// An endpoint URL as a service is configured with it, and what AWS's own
// host names are made of: the partition's DNS suffix and a valid region.
// Pure.

#include <floe/config.hpp>
#include <floe/result.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace floe::endpoints {

/// A parsed endpoint URL: scheme://host[:port][/base/path].
struct endpoint {
  std::string scheme;     // "http" or "https"
  std::string host;       // lower-case; an IPv6 literal without brackets
  std::uint16_t port = 0;
  std::string base_path;  // "" or "/prefix" (no trailing '/')
  bool host_is_ip = false;

  bool is_https() const noexcept { return scheme == "https"; }
  bool default_port() const noexcept { return port == (is_https() ? 443 : 80); }
  /// host, or [host] for IPv6, plus ":port" unless it is the default.
  FLOE_DECL std::string authority() const;
  /// scheme://authority + base_path.
  FLOE_DECL std::string url() const;
};

/// Parses an endpoint URL. http or https only; no user info, query or
/// fragment; a host name of letters, digits, '-', '.', '_' or an IP
/// literal; port 1-65535. errc::invalid_argument otherwise, naming `what`
/// (e.g. "AWS_ENDPOINT_URL_S3").
FLOE_DECL result<endpoint> parse_endpoint_url(std::string_view url, std::string_view what = "endpoint URL");

/// The DNS suffix of the AWS partition `region` belongs to: amazonaws.com,
/// amazonaws.com.cn (cn-*), amazonaws.eu (eusc-*), c2s.ic.gov (us-iso-*),
/// sc2s.sgov.gov (us-isob-*), cloud.adc-e.uk (eu-isoe-*), csp.hci.ic.gov
/// (us-isof-*) (botocore 1.43 checked).
FLOE_DECL std::string_view partition_dns_suffix(std::string_view region) noexcept;

/// Whether `region` can be used in an AWS host name: labels of a-z, 0-9 and
/// '-', 1-63 characters in all.
FLOE_DECL bool is_valid_aws_region(std::string_view region) noexcept;

namespace detail {
/// host[:port] as a Host header says it, into `a` (replacing what it held):
/// IPv6 in brackets, the port only when it is not the scheme's default.
FLOE_DECL void authority_into(std::string& a, std::string_view host, std::uint16_t port, bool https);
FLOE_DECL bool is_ipv4(std::string_view s) noexcept;
}  // namespace detail

}  // namespace floe::endpoints

#if defined(FLOE_HEADER_ONLY)
#include <floe/endpoints/impl/endpoint.ipp>
#endif
