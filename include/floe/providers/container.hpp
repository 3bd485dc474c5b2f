#pragma once
// Container credentials (ECS tasks, EKS Pod Identity, CodeBuild...): an
// HTTP endpoint named by the environment that answers with a JSON
// credentials document (AccessKeyId, SecretAccessKey, Token, Expiration).
//
// - AWS_CONTAINER_CREDENTIALS_RELATIVE_URI: a path on http://169.254.170.2
//   (wins when both are set, as in botocore);
// - AWS_CONTAINER_CREDENTIALS_FULL_URI: any https URL; plain http only to a
//   loopback address (127.0.0.0/8, ::1, localhost) or 169.254.170.2,
//   169.254.170.23, fd00:ec2::23 (the SDKs' rule: a token sent in clear
//   text must not leave the host or the task's link-local network).
// - The Authorization header: the contents of
//   AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE, read again on every fetch (EKS
//   Pod Identity rotates it), else AWS_CONTAINER_AUTHORIZATION_TOKEN.
//   Never logged or put in a message.

#include <floe/config.hpp>
#include <floe/credentials/environment.hpp>
#include <floe/credentials/refreshing.hpp>
#include <floe/http/client.hpp>
#include <floe/service/driver.hpp>
#include <floe/result.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace floe::credentials {

struct container_config {
  std::string url;         // the whole URL, checked by check_container_url
  std::string token;       // AWS_CONTAINER_AUTHORIZATION_TOKEN (when no file)
  std::string token_file;  // AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE
  std::string url_source;  // the variable the URL came from, for messages
  std::chrono::milliseconds timeout{2'000};  // connect and idle, per attempt
};

/// Whether the SDKs' rule lets floe fetch credentials from `url` (see
/// above). Pure. Errors: errc::invalid_argument saying why.
FLOE_DECL result<void> check_container_url(std::string_view url);

/// From the environment: nullopt when neither URI variable is set;
/// errc::invalid_argument for a full URI the rule refuses or that does not
/// parse (configured but broken).
FLOE_DECL result<std::optional<container_config>> container_from_environment(env_lookup const& env);

class container_source final : public refreshing_source {
 public:
  FLOE_DECL static result<std::unique_ptr<container_source>> create(boost::asio::any_io_executor ex,
                                                                   container_config cfg);
  FLOE_DECL boost::asio::awaitable<result<credentials>> fetch() override;
  FLOE_DECL std::string describe() const override;

 private:
  FLOE_DECL container_source(boost::asio::any_io_executor ex, container_config cfg, http::endpoint ep,
                             std::string target);
  container_config cfg_;
  http::endpoint ep_;
  std::string target_;
  std::unique_ptr<http::client> http_;
  std::unique_ptr<service::driver> driver_;  // unsigned: retries by the driver's rules
};

}  // namespace floe::credentials

#if defined(FLOE_HEADER_ONLY)
#include <floe/providers/impl/container.ipp>
#endif
