#pragma once
// EC2 instance metadata credentials, IMDSv2 only (no IMDSv1 fallback):
//   PUT /latest/api/token  (X-aws-ec2-metadata-token-ttl-seconds: 21600)
//   GET /latest/meta-data/iam/security-credentials/      -> the role name
//   GET /latest/meta-data/iam/security-credentials/ROLE  -> JSON credentials
// both GETs carrying X-aws-ec2-metadata-token. The session token and the
// role name are kept between fetches; a 401 (the token went stale) fetches
// a new token once per fetch, a 404 for the role (the instance profile was
// changed) looks the role up again once. The token's hop limit is the
// server's business (a container behind one more hop gets no reply, which
// the 1 s timeouts turn into a quick failure).
//
// Environment: AWS_EC2_METADATA_DISABLED=true turns the source off;
// AWS_EC2_METADATA_SERVICE_ENDPOINT replaces http://169.254.169.254
// (AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE=IPv6: http://[fd00:ec2::254]);
// AWS_METADATA_SERVICE_NUM_ATTEMPTS (1 to 10, default 1) sets the tries per
// request, made by the service driver's retry (a 5xx or a lost reply).

#include <floe/config.hpp>
#include <floe/credentials/environment.hpp>
#include <floe/credentials/refreshing.hpp>
#include <floe/http/client.hpp>
#include <floe/service/driver.hpp>
#include <floe/result.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace floe::credentials {

struct imds_config {
  std::string endpoint = "http://169.254.169.254";
  std::chrono::milliseconds timeout{1'000};  // connect and idle, per attempt
  unsigned attempts = 1;                     // per request (1: no retries); AWS_METADATA_SERVICE_NUM_ATTEMPTS
  std::chrono::seconds token_ttl{21600};
};

/// From the environment: nullopt when AWS_EC2_METADATA_DISABLED is "true"
/// (any case); errc::invalid_argument for an endpoint that is not
/// http(s)://host[:port] or a mode other than IPv4/IPv6.
FLOE_DECL result<std::optional<imds_config>> imds_from_environment(env_lookup const& env);

class imds_source final : public refreshing_source {
 public:
  struct statistics {
    std::uint64_t token_requests = 0;
    std::uint64_t role_requests = 0;
    std::uint64_t credential_requests = 0;
    std::uint64_t stale_tokens = 0;  // 401s that led to a new token
  };

  FLOE_DECL static result<std::unique_ptr<imds_source>> create(boost::asio::any_io_executor ex, imds_config cfg);
  FLOE_DECL boost::asio::awaitable<result<credentials>> fetch() override;
  FLOE_DECL std::string describe() const override;
  statistics const& stats() const noexcept { return stats_; }

 private:
  FLOE_DECL imds_source(boost::asio::any_io_executor ex, imds_config cfg, http::endpoint ep);
  FLOE_DECL boost::asio::awaitable<result<http::response>> send(std::string method, std::string target, bool with_token);

  imds_config cfg_;
  http::endpoint ep_;
  std::unique_ptr<http::client> http_;
  std::unique_ptr<service::driver> driver_;  // unsigned: retries by the driver's rules
  std::string token_;
  std::string role_;
  statistics stats_;
};

}  // namespace floe::credentials

#if defined(FLOE_HEADER_ONLY)
#include <floe/providers/impl/imds.ipp>
#endif
