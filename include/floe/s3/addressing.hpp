#pragma once
// Where an S3 request goes: endpoint, region, addressing style, and for a
// (bucket, key) the scheme, host, port, Host header and wire path; plus
// bucket-name checks and the bucket -> region memory a region redirect
// fills. The query-string builder is s3/query_builder.hpp (included here).
// Pure: settings in, values out (the environment is read through an
// injected lookup).
//
// Endpoint, first found wins (endpoints/resolver.hpp, shared by every service):
//   caller > AWS_ENDPOINT_URL_S3 > AWS_ENDPOINT_URL > the profile's services
//   section (`services = x`, `[services x]` with `s3 =\n endpoint_url = ...`)
//   > the profile's `endpoint_url` > the AWS endpoint for the region.
//   AWS_IGNORE_CONFIGURED_ENDPOINT_URLS=true (or the profile's
//   `ignore_configured_endpoint_urls = true`) skips everything but the
//   caller's, as in the SDKs.
// AWS endpoint for a region (botocore 1.43 checked): s3.<region>.<suffix>,
//   suffix by partition: amazonaws.com, amazonaws.com.cn (cn-*),
//   amazonaws.eu (eusc-*), c2s.ic.gov (us-iso-*), sc2s.sgov.gov (us-isob-*),
//   cloud.adc-e.uk (eu-isoe-*), csp.hci.ic.gov (us-isof-*). us-east-1 uses
//   the global s3.amazonaws.com, as botocore still does by default
//   ("legacy"); `s3_us_east_1_regional_endpoint = regional` in the profile,
//   AWS_S3_US_EAST_1_REGIONAL_ENDPOINT=regional or the caller selects
//   s3.us-east-1.amazonaws.com. Requests are signed for us-east-1 either way.
// Region, first found wins: caller > AWS_REGION > AWS_DEFAULT_REGION > the
//   profile's `region` > us-east-1. (botocore reads only AWS_DEFAULT_REGION
//   and fails without a region; the other SDKs read AWS_REGION. S3 answers
//   a request to the wrong region with the bucket's region, which the
//   client follows once and remembers in bucket_region_cache.)
// Addressing style (caller > profile `s3 =\n addressing_style = ...`):
//   automatic: virtual-hosted (bucket.s3.region.amazonaws.com/key) on AWS
//   endpoints for DNS-compatible names without dots; path style
//   (host/bucket/key) for custom endpoints, IP-address hosts, names with
//   dots (a TLS wildcard certificate covers one label) or names that are not
//   DNS-compatible (legacy upper case / underscore names);
//   virtual: virtual-hosted whenever the name allows (dots only over http),
//   else path style, as botocore falls back;
//   path: always path style.
// Wire path: the key is taken literally (no dot-segment removal; "//" and a
//   leading '/' are part of it: key "/a" in bucket b is "/b//a" path style),
//   percent-encoded by floe::sigv4::uri_encode with '/' kept.

#include <floe/config.hpp>
#include <floe/credentials/environment.hpp>
#include <floe/credentials/profile.hpp>
#include <floe/endpoints/endpoint.hpp>
#include <floe/endpoints/resolver.hpp>
#include <floe/result.hpp>
#include <floe/s3/query_builder.hpp>
#include <floe/sigv4/canonical.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace floe::s3 {

enum class addressing_style { automatic, virtual_hosted, path };

/// Endpoint URLs, partitions and regions (endpoints/endpoint.hpp), under
/// the names S3 code has always used.
using endpoints::endpoint;
using endpoints::is_valid_aws_region;
using endpoints::parse_endpoint_url;
using endpoints::partition_dns_suffix;

/// Settings from the caller; empty or nullopt means "not set".
struct addressing_params {
  std::string endpoint_url;
  std::string region;
  std::optional<addressing_style> style;
  std::optional<bool> us_east_1_regional;
};

/// Resolved settings for one client.
struct addressing_config {
  /// The custom endpoint, or nullopt for AWS's own endpoints.
  std::optional<endpoint> custom_endpoint;
  std::string region;
  addressing_style style = addressing_style::automatic;
  bool us_east_1_regional = false;
  /// Where each came from, for `--verbose` output and errors:
  /// "caller", "AWS_ENDPOINT_URL_S3", "profile dev services local", "default", ...
  std::string endpoint_source;
  std::string region_source;
};

/// Applies the precedence rules above. `prof` may be null (no profile).
/// errc::invalid_argument for an unusable endpoint URL, region or
/// addressing style, naming where it came from.
FLOE_DECL result<addressing_config> resolve_addressing(addressing_params const& caller,
                                                       credentials::env_lookup const& env,
                                                       credentials::profile const* prof);

/// The same with the endpoint resolver and the region a shared
/// configuration (a session) chose: the endpoint is the resolver's for
/// "s3" (the caller's URL first), the region the caller's, else `region`
/// (from `region_source`), else us-east-1. The addressing style and the
/// us-east-1 endpoint come from `env` and `prof` as above.
FLOE_DECL result<addressing_config> resolve_addressing(addressing_params const& caller,
                                                       endpoints::resolver const& endpoints, std::string_view region,
                                                       std::string_view region_source,
                                                       credentials::env_lookup const& env,
                                                       credentials::profile const* prof);

/// A region and where it came from; empty when none is configured.
struct region_choice {
  std::string region;
  std::string source;  // "AWS_REGION", "AWS_DEFAULT_REGION", "~/.aws/config:4"
};

/// AWS_REGION, else AWS_DEFAULT_REGION, else the profile's `region`.
FLOE_DECL region_choice choose_region(credentials::env_lookup const& env, credentials::profile const* prof);

enum class bucket_name_rules {
  /// What can be addressed at all: 1-255 of A-Z a-z 0-9 . - _ (botocore's
  /// check; legacy us-east-1 names and Ceph's relaxed names pass).
  addressable,
  /// What AWS lets you create today: 3-63 of a-z 0-9 . -, starting and
  /// ending with a letter or digit, no "..", no ".-"/"-.", not an IPv4
  /// address, not starting with xn--, sthree- or amzn-s3-demo-, not ending
  /// with -s3alias, --ol-s3, .mrap, --x-s3 or --table-s3.
  aws_create,
};

/// errc::invalid_argument with a message saying which rule `bucket` breaks.
FLOE_DECL result<void> validate_bucket_name(std::string_view bucket,
                                            bucket_name_rules rules = bucket_name_rules::addressable);

/// Whether `bucket` can be a host label prefix: 3-63 of a-z 0-9 - (and '.'
/// when allow_dots), each label starting and ending with a letter or digit,
/// not an IPv4 address.
FLOE_DECL bool is_dns_compatible(std::string_view bucket, bool allow_dots) noexcept;

/// Object keys longer than this are refused (the S3 limit, in bytes).
inline constexpr std::size_t max_key_size = 1024;

/// Where one request goes.
struct request_target {
  std::string scheme;
  std::string host;         // to connect to (IPv6 without brackets)
  std::uint16_t port = 0;
  std::string host_header;  // the Host header: authority without a default port
  std::string path;         // the wire path, already encoded; canonical URI as is (sigv4::path_rules::s3)
  std::string region;       // to sign for
  bool virtual_hosted = false;

  /// scheme://host_header + path [+ '?' + query].
  FLOE_DECL std::string url(std::string_view query = {}) const;
};

/// The target for `bucket` (and `key`, when given) under `cfg`. `region`
/// overrides cfg.region (a region learned from a redirect): on AWS
/// endpoints it changes the host, on custom endpoints only the signing
/// region. Errors (errc::invalid_argument): a bad bucket name, an empty key
/// or one longer than max_key_size, an invalid region for an AWS host name.
FLOE_DECL result<request_target> resolve_target(addressing_config const& cfg, std::string_view bucket,
                                                std::optional<std::string_view> key,
                                                std::string_view region = {});

/// resolve_target into `t`, reusing its strings' memory; false and `why` on
/// an error.
FLOE_DECL bool resolve_target_into(addressing_config const& cfg, std::string_view bucket,
                                   std::optional<std::string_view> key, std::string_view region, request_target& t,
                                   error& why);

/// The target for a request to no bucket (ListBuckets): path "/".
FLOE_DECL result<request_target> resolve_service_target(addressing_config const& cfg, std::string_view region = {});

/// Remembers the region of buckets that live elsewhere than the client's
/// region (from x-amz-bucket-region on a 301/400 reply), so later requests
/// go straight there. Bounded: past `capacity` buckets the least recently
/// used is forgotten. Thread-safe.
class bucket_region_cache {
 public:
  explicit bucket_region_cache(std::size_t capacity = 1024) : capacity_(capacity == 0 ? 1 : capacity) {}

  /// Records `region` for `bucket`. Returns false, recording nothing, when
  /// `region` is not a plausible region name (the value comes from a
  /// server: it must not be able to steer requests to an arbitrary host).
  FLOE_DECL bool remember(std::string_view bucket, std::string_view region);
  /// The remembered region, refreshing its recency.
  FLOE_DECL std::optional<std::string> lookup(std::string_view bucket);
  FLOE_DECL void forget(std::string_view bucket);
  FLOE_DECL std::size_t size() const;
  std::size_t capacity() const noexcept { return capacity_; }

 private:
  using entry = std::pair<std::string, std::string>;  // bucket, region
  std::size_t capacity_;
  mutable std::mutex mutex_;
  std::list<entry> order_;  // most recent first
  std::unordered_map<std::string, std::list<entry>::iterator> index_;
  std::atomic<std::size_t> entries_{0};  // order_.size(), readable without the lock
};

}  // namespace floe::s3

#if defined(FLOE_HEADER_ONLY)
#include <floe/s3/impl/addressing.ipp>
#endif
