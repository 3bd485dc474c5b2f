#pragma once
// IAM Identity Center (SSO) credentials for a profile that sets
// sso_account_id and sso_role_name (profile_chain.hpp resolves the
// settings, with sso_session or the legacy sso_start_url + sso_region):
//
// 1. The access token `aws sso login` left in the token cache:
//    $HOME/.aws/sso/cache/<sha1 hex>.json, where the hash is of the
//    sso-session name (sso_session) or of the start URL (legacy form); its
//    `accessToken` and `expiresAt` (ISO 8601) are read. The file is read
//    again on every fetch, so a new `aws sso login` heals a running
//    process. floe never refreshes the token itself (no SSO-OIDC
//    CreateToken): a missing or expired token is a clear error telling the
//    user to run `aws sso login`.
// 2. GetRoleCredentials on the portal:
//    GET https://portal.sso.<sso_region>.amazonaws.com/federation/credentials
//        ?account_id=<sso_account_id>&role_name=<sso_role_name>
//    with the token in the `x-amz-sso_bearer_token` header (not signed);
//    the endpoint comes from the endpoint resolver for service id `sso`
//    (AWS_ENDPOINT_URL_SSO, AWS_ENDPOINT_URL, the profile's `services`
//    section and `endpoint_url`, else AWS's in sso_region: amazonaws.com.cn
//    for cn-*), a session's resolver when the chain is made from one. The reply:
//    {"roleCredentials": {"accessKeyId", "secretAccessKey", "sessionToken",
//    "expiration" (ms since the epoch)}}.
// The sets go through the refreshing cache. The token never appears in a
// message or a log line.

#include <floe/config.hpp>
#include <floe/credentials/credentials.hpp>
#include <floe/credentials/environment.hpp>
#include <floe/credentials/profile_chain.hpp>
#include <floe/credentials/refreshing.hpp>
#include <floe/endpoints/resolver.hpp>
#include <floe/http/client_config.hpp>
#include <floe/http/client.hpp>
#include <floe/service/driver.hpp>
#include <floe/result.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace floe::credentials {

struct sso_config {
  std::string profile;        // for messages
  std::string session_name;   // sso_session; empty: the legacy form
  std::string start_url;
  std::string region;
  std::string account_id;
  std::string role_name;
  std::string cache_dir;      // $HOME/.aws/sso/cache
  std::string endpoint;       // https://portal.sso.<region>.<suffix>, or a configured one
  std::string endpoint_source;  // "sso_region", or where the configured one came from ("AWS_ENDPOINT_URL_SSO", ...)
  std::chrono::milliseconds timeout{5'000};  // connect and idle, per attempt
  /// The wall clock (token expiry); null: system_clock::now.
  std::function<std::chrono::system_clock::time_point()> clock;
  /// Its TLS, proxy, resolve overrides and exchange observer are the
  /// portal client's (a session's: --ca-bundle, AWS_CA_BUNDLE through its
  /// lookup, its proxy); timeouts, retries and limits are SSO's own.
  http::client_config http;
};

/// The token cache's file name stem: the lower-case hex SHA-1 of the
/// sso-session name, or of the start URL in the legacy form. Pure.
FLOE_DECL std::string sso_cache_key(std::string_view session_name_or_start_url);

/// The whole path of the cached token file for `cfg`.
FLOE_DECL std::string sso_token_path(sso_config const& cfg);

/// The cached token: `accessToken` (required, non-empty) and `expiresAt`
/// (required, ISO 8601; a trailing "UTC" is read as "Z", as older CLIs
/// wrote it). Pure. Errors: errc::malformed_reply naming `what` and the
/// field, never the token.
struct sso_token {
  secret_string access_token;
  std::chrono::sys_seconds expires_at;
};
FLOE_DECL result<sso_token> parse_sso_token(std::string_view text, std::string_view what);

/// The portal's reply (see above). Pure. Errors: errc::malformed_reply;
/// errc::reply_too_large over 64 KiB.
FLOE_DECL result<credentials> parse_sso_role_credentials(std::string_view text, std::string_view what);

/// The settings for a plan whose base is profile_base_kind::sso: the cache
/// under $HOME (from `env`), the endpoint from `endpoints` (null: a
/// resolver of `env` alone, without the profile's settings) for service id
/// `sso` in sso_region. Errors: errc::invalid_argument (no HOME, a bad
/// endpoint URL, a region that cannot be a host name).
FLOE_DECL result<sso_config> sso_config_from_plan(profile_plan const& plan, env_lookup const& env,
                                                  endpoints::resolver const* endpoints = nullptr);

class sso_source final : public refreshing_source {
 public:
  /// Errors: errc::invalid_argument for an endpoint that does not parse.
  FLOE_DECL static result<std::unique_ptr<sso_source>> create(boost::asio::any_io_executor ex, sso_config cfg);

  /// Reads the cached token, then calls the portal. Errors:
  /// errc::credentials_unavailable (no cached token, an expired one, or the
  /// portal refused it: each says to run `aws sso login`; any other HTTP
  /// status, with it), errc::malformed_reply, the HTTP client's errors.
  FLOE_DECL boost::asio::awaitable<result<credentials>> fetch() override;
  FLOE_DECL std::string describe() const override;

 private:
  FLOE_DECL sso_source(boost::asio::any_io_executor ex, sso_config cfg, http::endpoint ep, std::string base_target);
  FLOE_DECL std::string login_hint() const;

  sso_config cfg_;
  http::endpoint ep_;
  std::string base_target_;  // the endpoint URL's path, without a trailing '/'
  std::unique_ptr<http::client> http_;
  std::unique_ptr<service::driver> driver_;  // unsigned: retries by the driver's rules
};

}  // namespace floe::credentials

#if defined(FLOE_HEADER_ONLY)
#include <floe/providers/impl/sso.ipp>
#endif
