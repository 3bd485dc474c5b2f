#pragma once
// Web identity credentials (IRSA on Kubernetes, GitHub OIDC, ...): a role
// ARN and a token file; STS AssumeRoleWithWebIdentity turns the token into
// temporary credentials. The token file is read again at every fetch (the
// kubelet rotates it), and the sets are kept by the refreshing cache.
//
//   auto p = floe::credentials::make_web_identity_provider_from_environment(ex, env);
//   if (!p) return p.error();          // configured but broken
//   if (*p) cfg.credentials = **p;     // AWS_ROLE_ARN + AWS_WEB_IDENTITY_TOKEN_FILE were set

#include <floe/config.hpp>
#include <floe/credentials/environment.hpp>
#include <floe/credentials/refreshing.hpp>
#include <floe/result.hpp>
#include <floe/sts/client.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <string>

namespace floe::credentials {

struct web_identity_config {
  std::string role_arn;
  std::string token_file;
  std::string session_name;          // empty: "floe-<unix ms>" per fetch
  std::chrono::seconds duration{0};  // 0: the role's default
};

/// From AWS_ROLE_ARN, AWS_WEB_IDENTITY_TOKEN_FILE and AWS_ROLE_SESSION_NAME:
/// nullopt when neither of the first two is set; errc::invalid_argument
/// when only one is (configured but broken).
FLOE_DECL result<std::optional<web_identity_config>> web_identity_from_environment(env_lookup const& env);

/// Reads a token file: at most 64 KiB, surrounding whitespace trimmed.
/// Errors: errc::credentials_unavailable naming the file (missing,
/// unreadable, empty), errc::reply_too_large (over the limit). The token
/// never appears in a message.
FLOE_DECL result<std::string> read_token_file(std::string const& path);

/// The refreshing source: one AssumeRoleWithWebIdentity per fetch, with the
/// token read from the file before each try.
class web_identity_source final : public refreshing_source {
 public:
  /// Errors: those of sts::client::create (a bad endpoint or region).
  FLOE_DECL static result<std::unique_ptr<web_identity_source>> create(boost::asio::any_io_executor ex,
                                                                      web_identity_config cfg,
                                                                      sts::client_config sts = {});

  FLOE_DECL boost::asio::awaitable<result<credentials>> fetch() override;
  FLOE_DECL std::string describe() const override;

  sts::client& sts() noexcept { return *sts_; }
  web_identity_config const& config() const noexcept { return cfg_; }

 private:
  web_identity_source(web_identity_config cfg, std::unique_ptr<sts::client> sts)
      : cfg_(std::move(cfg)), sts_(std::move(sts)) {}

  web_identity_config cfg_;
  std::unique_ptr<sts::client> sts_;
  std::function<std::chrono::system_clock::time_point()> clock_;
};

/// A refreshing cache over a web_identity_source. The STS client runs on `ex`.
FLOE_DECL result<std::shared_ptr<refreshing_provider>> make_web_identity_provider(
    boost::asio::any_io_executor ex, web_identity_config cfg, sts::client_config sts = {},
    refreshing_params params = {});

/// The same from the environment: nullptr when web identity is not
/// configured there. sts.env defaults to `env`.
FLOE_DECL result<std::shared_ptr<refreshing_provider>> make_web_identity_provider_from_environment(
    boost::asio::any_io_executor ex, env_lookup const& env, sts::client_config sts = {},
    refreshing_params params = {});

}  // namespace floe::credentials

#if defined(FLOE_HEADER_ONLY)
#include <floe/providers/impl/web_identity.ipp>
#endif
