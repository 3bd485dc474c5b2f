#pragma once
// The default credential chain, in the AWS SDKs' order:
//   1. environment keys (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, ...)
//   2. web identity from the environment (AWS_ROLE_ARN + AWS_WEB_IDENTITY_TOKEN_FILE)
//   3. the shared config and credentials files' profile (profile_chain.hpp:
//      static keys, role_arn + web_identity_token_file, role_arn +
//      source_profile chains, credential_source, SSO (sso.hpp),
//      credential_process)
//   4. container credentials (AWS_CONTAINER_CREDENTIALS_RELATIVE_URI / _FULL_URI)
//   5. EC2 instance metadata (IMDSv2), unless AWS_EC2_METADATA_DISABLED=true
//
// Sources 1-4 are chosen from configuration alone: the first one that is
// configured is the source, for good (a configured source that is broken
// stops the search with its error, as in the SDKs, rather than silently
// using another identity). IMDS is the source when nothing else is
// configured. The chosen source is remembered: when it fails later, its
// error is returned; the chain never falls back to another source or to
// anonymous requests. When no source has credentials, the error names
// every source tried and why each was skipped.
//
// Temporary credentials (web identity, roles, processes, container, IMDS)
// come through the refreshing cache (refreshing.hpp); static keys through
// a static_provider.

#include <floe/config.hpp>
#include <floe/providers/container.hpp>
#include <floe/credentials/environment.hpp>
#include <floe/providers/imds.hpp>
#include <floe/credentials/profile_chain.hpp>
#include <floe/credentials/provider.hpp>
#include <floe/credentials/refreshing.hpp>
#include <floe/credentials/shared_files.hpp>
#include <floe/endpoints/resolver.hpp>
#include <floe/http/client_config.hpp>
#include <floe/result.hpp>
#include <floe/sts/client.hpp>

#include <boost/asio/any_io_executor.hpp>

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace floe::credentials {

struct chain_config {
  /// null: the process environment.
  env_lookup env;
  shared_files_params shared_files;
  /// For every STS client the chain makes (web identity, roles); env
  /// defaults to `env`.
  sts::client_config sts;
  /// The resolver the SSO portal's endpoint comes from (make_session gives
  /// the session's: the profile's `services` section and `endpoint_url`
  /// too); unset: one of `env` alone.
  std::optional<endpoints::resolver> endpoints;
  /// The SSO portal client takes its TLS, proxy, resolve overrides and
  /// observer from here (make_session gives the session's). The proxy is
  /// used as given when `proxy_from_env` is off; on, an empty one is read
  /// from `env` (make_session turns it off: the session's proxy is given).
  /// tls.env defaults to `env`.
  http::client_config http;
  bool proxy_from_env = true;
  refreshing_params refresh;
  std::chrono::milliseconds process_timeout{30'000};
  /// Overrides the IMDS timeouts (the endpoint still comes from the environment).
  std::chrono::milliseconds imds_timeout{1'000};
};

/// One source the chain looked at and did not use.
struct chain_skip {
  std::string source;  // "environment", "web identity", "shared files", "container", "IMDS"
  std::string why;
};

/// Builds the providers a profile plan needs (pure plan, I/O providers).
/// Errors: a source that cannot be set up (bad endpoint, bad command line,
/// credential_source Environment without keys...).
FLOE_DECL result<std::shared_ptr<provider>> make_profile_provider(boost::asio::any_io_executor ex,
                                                                  profile_plan const& plan,
                                                                  chain_config const& cfg);

class chain_provider final : public provider, public std::enable_shared_from_this<chain_provider> {
  struct token {};

 public:
  /// Looks at the configuration (reads the shared files) and picks the
  /// source. Errors: a configured source that is broken
  /// (errc::invalid_argument). No source at all is not an error here: the
  /// provider then fails every request with errc::credentials_unavailable
  /// naming each source and why it was skipped.
  FLOE_DECL static result<std::shared_ptr<chain_provider>> create(boost::asio::any_io_executor ex,
                                                                  chain_config cfg = {});

  FLOE_DECL chain_provider(token, std::shared_ptr<provider> chosen, std::string chosen_name,
                           std::vector<chain_skip> skipped, bool may_fail_over);

  FLOE_DECL result<credentials> get() override;
  FLOE_DECL std::shared_ptr<credentials const> lend() override;
  void invalidate(std::uint64_t generation) noexcept override { chosen_->invalidate(generation); }
  void confirm(std::uint64_t generation) noexcept override { chosen_->confirm(generation); }
  bool refreshable() const noexcept override { return chosen_->refreshable(); }
  FLOE_DECL std::string describe() const override;

  /// The provider the chain delegates to, and its short name
  /// ("environment", "web identity", "profile dev", "container", "IMDS";
  /// "none" when nothing was found).
  provider& chosen() noexcept { return *chosen_; }
  std::shared_ptr<provider> chosen_ptr() const noexcept { return chosen_; }
  std::string const& chosen_name() const noexcept { return chosen_name_; }
  std::vector<chain_skip> const& skipped() const noexcept { return skipped_; }
  /// Whether the chosen source has handed out credentials at least once.
  bool has_worked() const noexcept { return worked_.load(); }

 protected:
  FLOE_DECL void do_async_get(boost::asio::any_completion_handler<get_signature> handler,
                              boost::asio::any_io_executor ex) override;

 private:
  FLOE_DECL result<credentials> note(result<credentials> r);

  std::shared_ptr<provider> chosen_;
  std::string chosen_name_;
  std::vector<chain_skip> skipped_;
  bool last_resort_ = false;  // the chosen source is IMDS, picked because nothing else was configured
  std::atomic<bool> worked_{false};
};

/// chain_provider::create as a plain provider pointer.
FLOE_DECL result<std::shared_ptr<provider>> make_default_chain(boost::asio::any_io_executor ex, chain_config cfg = {});

}  // namespace floe::credentials

#if defined(FLOE_HEADER_ONLY)
#include <floe/providers/impl/chain.ipp>
#endif
