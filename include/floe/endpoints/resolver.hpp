#pragma once
// One endpoint resolver for every service: where S3, STS, SQS and the SSO
// portal are reached. Pure: the environment is an injected lookup and the
// profile's settings are values (credentials::profile::endpoint_settings
// makes them from the shared config file).
//
// A service id is the SDKs' lower-case name: "s3", "sts", "sqs", "sso".
// Configured endpoint, first found wins:
//   the caller's URL
//   > AWS_ENDPOINT_URL_<SERVICE> (the id upper-cased, ' ' and '-' as '_')
//   > AWS_ENDPOINT_URL
//   > the profile's services section (`services = x` names `[services x]`,
//     whose `<id> =` block holds `endpoint_url = ...`)
//   > the profile's `endpoint_url`.
// AWS_IGNORE_CONFIGURED_ENDPOINT_URLS=true (else the profile's
// `ignore_configured_endpoint_urls = true`) skips all but the caller's, as
// in the SDKs.
// Else AWS's own endpoint in the region: https://<host>.<region>.<suffix>,
// the suffix by partition (endpoint.hpp: amazonaws.com, amazonaws.com.cn
// for cn-*, ...). The host is the service id, "portal.sso" for SSO. STS
// without a region is the global https://sts.amazonaws.com, signed for
// us-east-1. S3 makes its own hosts (bucket names, the us-east-1 global
// endpoint: s3/addressing.hpp) and asks only for the configured endpoint.
// FIPS and dual-stack endpoints are not supported.

#include <floe/config.hpp>
#include <floe/endpoints/endpoint.hpp>
#include <floe/environment.hpp>
#include <floe/result.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace floe::endpoints {

/// What a profile says about endpoints, with where each setting was read
/// ("~/.aws/config:12"), for messages.
struct profile_settings {
  std::string label;  // "profile 'dev'"
  std::string endpoint_url;
  std::string endpoint_url_where;
  std::optional<std::string> ignore_configured_endpoint_urls;
  std::string ignore_where;
  std::string services;  // the services section the profile names (`services = x`)
  /// The endpoint_url of each service block of that section: (key, url).
  std::vector<std::pair<std::string, std::string>> service_urls;
};

/// Where a service's requests go.
struct resolved {
  endpoint ep;
  /// Where it came from: "caller", "AWS_ENDPOINT_URL_SQS", "AWS_ENDPOINT_URL",
  /// "profile 'dev' services 'local'", "~/.aws/config:3" (a profile's
  /// endpoint_url), or "default" (AWS's own).
  std::string source;
  /// A configured endpoint rather than AWS's own.
  bool custom = false;
  /// The region requests are signed for.
  std::string signing_region;
};

/// AWS_ENDPOINT_URL_<SERVICE> for a service id.
FLOE_DECL std::string endpoint_variable(std::string_view service_id);

/// The key of a service id in a services section: lower case, ' ' and '-' as '_'.
FLOE_DECL std::string services_key(std::string_view service_id);

class resolver {
 public:
  /// Nothing configured: AWS's endpoints.
  resolver() = default;

  /// Reads AWS_IGNORE_CONFIGURED_ENDPOINT_URLS (else the profile's setting).
  /// The other variables are read by each call (through `env`). Errors:
  /// errc::invalid_argument for an ignore setting that is not true/false.
  FLOE_DECL static result<resolver> create(env_lookup env, std::optional<profile_settings> profile = std::nullopt);

  /// The endpoint configured for `service_id` (see above), or nullopt when
  /// none is (the service then uses AWS's). `signing_region` of the result
  /// is left empty. Errors: errc::invalid_argument for a URL that does not
  /// parse, naming where it came from.
  FLOE_DECL result<std::optional<resolved>> configured(std::string_view service_id,
                                                       std::string_view caller_url = {}) const;

  /// configured(), else AWS's endpoint for `service_id` in `region` (see
  /// above); signed for `region` (us-east-1 for the global STS endpoint).
  /// Errors: those of configured(); errc::invalid_argument for a region
  /// that cannot be part of an AWS host name, or none where one is needed,
  /// naming `region_source`.
  FLOE_DECL result<resolved> resolve(std::string_view service_id, std::string_view region,
                                     std::string_view caller_url = {},
                                     std::string_view region_source = "the configuration") const;

  /// Whether configured endpoints are ignored (all but the caller's).
  bool ignores_configured() const noexcept { return ignore_; }
  /// Where that was said, for messages ("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS").
  std::string const& ignore_source() const noexcept { return ignore_source_; }

 private:
  env_lookup env_;
  std::optional<profile_settings> profile_;
  bool ignore_ = false;
  std::string ignore_source_;
};

}  // namespace floe::endpoints

#if defined(FLOE_HEADER_ONLY)
#include <floe/endpoints/impl/resolver.ipp>
#endif
