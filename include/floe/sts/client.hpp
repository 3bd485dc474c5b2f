#pragma once
// sts::client: AssumeRoleWithWebIdentity (unsigned), AssumeRole (signed;
// role chaining) and GetCallerIdentity, through the service driver
// (service/driver.hpp) on an http::client of its own (so its own connection
// pool and retry quota: an STS outage never drains the quota of the S3
// client, and the reverse).
//
// Retries: the driver's standard mode, up to `max_attempts` in all with
// this client's back-off and quota: transport failures, 5xx, and STS's own
// retryable codes — IDPCommunicationError, throttling (Throttling*,
// RequestLimitExceeded, ...) and InvalidIdentityToken (an OIDC provider
// whose keys have not propagated yet) — the request built again for each
// try (the web identity token is read again from its file).
// ExpiredTokenException (the token itself expired) and AccessDenied are
// never retried. A failure of a credential fetch is never classified
// stale_credentials: it must not invalidate anything. GetCallerIdentity
// signed by the client's own provider (a client made from a session) heals
// after stale credentials as every signed request does.
//
// Threading: like http::client, a client runs on its executor: every
// operation runs there, whatever the token (service/detail/launch.hpp). On
// an io_context run by several threads give it a strand. Lifetimes: the client must outlive its operations;
// arguments are copied into the operation.
//
// GCC 12: bind request structs to named variables before a co_await
// expression (never pass `web_identity_request{...}` inside one).

#include <floe/config.hpp>
#include <floe/credentials/credentials.hpp>
#include <floe/credentials/environment.hpp>
#include <floe/http/client.hpp>
#include <floe/credentials/provider.hpp>
#include <floe/result.hpp>
#include <floe/service/detail/launch.hpp>
#include <floe/service/driver.hpp>
#include <floe/session/session.hpp>
#include <floe/sts/protocol.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/deferred.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>

namespace floe::sts {

/// A shared configuration's way to the endpoint (a session's: its resolver
/// reads the profile's `services` section and `endpoint_url` too) and the
/// region it chose, with where that came from.
struct shared_endpoints {
  endpoints::resolver resolver;
  std::string region;
  std::string region_source;
};

struct client_config {
  /// The caller's endpoint URL and region: they win over everything.
  endpoint_params endpoint;
  /// Environment lookup (region, endpoint overrides); null: the process environment.
  credentials::env_lookup env;
  /// Set (make_session sets it for the credential chain's STS clients):
  /// the endpoint is resolved through it, as for an STS client made from
  /// the session. Unset: through a resolver of `env` alone
  /// (AWS_ENDPOINT_URL_STS, AWS_ENDPOINT_URL; AWS_REGION, AWS_DEFAULT_REGION).
  std::optional<shared_endpoints> shared;
  /// Unset `shared`: an empty proxy here is read from `env` (the proxy
  /// variables), and tls.env defaults to `env`. Set: used as given.
  http::client_config http;
  /// Tries in all (transport failures, 5xx and the codes of
  /// is_retryable_sts_code alike), each built again.
  unsigned max_attempts = 3;
  /// Back-off between those tries: random01 x min(2^n x base, cap).
  std::chrono::milliseconds retry_base{500};
  std::chrono::milliseconds retry_cap{5000};
  /// The wall clock used for signing; null: system_clock::now.
  std::function<std::chrono::system_clock::time_point()> clock;
  /// Uniform draws in [0, 1) for the back-off; null: a seeded PRNG.
  std::function<double()> random;
  /// Signs GetCallerIdentity when no caller set is given (a client made
  /// from a session has the session's); null: none.
  std::shared_ptr<credentials::provider> credentials;
};

/// Reads the web identity token for one try (e.g. from its file).
using token_source = std::function<result<std::string>()>;

class client {
 public:
  using executor_type = boost::asio::any_io_executor;

  struct statistics {
    std::uint64_t operations = 0;  // calls of async_*
    std::uint64_t tries = 0;       // requests built and sent (every attempt)
    std::uint64_t token_reads = 0; // web identity tokens read
  };

  /// Resolves the endpoint (see resolve_endpoint; through cfg.shared when
  /// set). Errors: errc::invalid_argument.
  FLOE_DECL static result<std::unique_ptr<client>> create(executor_type ex, client_config cfg = {});

  /// A client made from a shared configuration (session/session.hpp): the
  /// endpoint from its resolver (AWS_ENDPOINT_URL_STS, AWS_ENDPOINT_URL,
  /// the profile's services section and endpoint_url, else AWS's in its
  /// region), its environment, HTTP settings and credentials provider
  /// (which signs GetCallerIdentity without a caller set). From `cfg` the
  /// endpoint URL and region given, the retry settings, clock and random.
  FLOE_DECL static result<std::unique_ptr<client>> create(executor_type ex, session const& s, client_config cfg = {});

  FLOE_DECL ~client();
  client(client const&) = delete;
  client& operator=(client const&) = delete;

  executor_type get_executor() const noexcept { return http_.get_executor(); }
  endpoint_config const& endpoint() const noexcept { return endpoint_; }
  http::client& http() noexcept { return http_; }
  statistics const& stats() const noexcept { return stats_; }

  /// AssumeRoleWithWebIdentity, unsigned. `token` is called before each try
  /// and its text becomes WebIdentityToken (the request's own
  /// web_identity_token is used when `token` is empty).
  /// Completes with `result<assumed_role>`. Errors: the token source's
  /// error; errc::invalid_argument (empty role ARN or token, bad session
  /// name); STS's answer classified (errc::denied for AccessDenied or an
  /// expired token, errc::service_error for other 4xx, errc::throttled /
  /// errc::transient when retries ran out) with the code, message and
  /// request id in the diagnostics; transport errors; errc::malformed_reply.
  /// Cancellation: terminal, through the token's slot (the request in
  /// flight or the back-off wait is aborted).
  template <class Token = boost::asio::deferred_t>
  auto async_assume_role_with_web_identity(web_identity_request req, token_source token, Token&& tok = {}) {
    return service::detail::start<result<assumed_role>>(
        http_.get_executor(),
        [this, r = std::move(req), t = std::move(token)]() mutable { return run_web_identity(std::move(r), std::move(t)); },
        std::forward<Token>(tok));
  }

  /// AssumeRole, signed with `caller` (role chaining). Errors and
  /// cancellation as above.
  template <class Token = boost::asio::deferred_t>
  auto async_assume_role(assume_role_request req, credentials::credentials caller, Token&& tok = {}) {
    return service::detail::start<result<assumed_role>>(
        http_.get_executor(),
        [this, r = std::move(req), c = std::move(caller)]() mutable { return run_assume_role(std::move(r), std::move(c)); },
        std::forward<Token>(tok));
  }

  /// GetCallerIdentity, signed with `caller`.
  template <class Token = boost::asio::deferred_t>
  auto async_get_caller_identity(credentials::credentials caller, Token&& tok = {}) {
    return service::detail::start<result<caller_identity>>(
        http_.get_executor(), [this, c = std::move(caller)]() mutable { return run_caller_identity(std::move(c), true); },
        std::forward<Token>(tok));
  }

  /// GetCallerIdentity, signed by the client's credentials provider
  /// (client_config::credentials, a session's): a reply saying they went
  /// stale invalidates them and is sent once more with a fresh set.
  /// Errors as above, and errc::credentials_unavailable without a provider.
  template <class Token = boost::asio::deferred_t>
    requires(!std::is_convertible_v<Token, credentials::credentials>)
  auto async_get_caller_identity(Token&& tok = {}) {
    return service::detail::start<result<caller_identity>>(
        http_.get_executor(), [this]() { return run_caller_identity({}, false); }, std::forward<Token>(tok));
  }

 private:
  FLOE_DECL client(executor_type ex, client_config cfg, endpoint_config ep, http::endpoint hep);

  using body_builder = std::function<result<std::string>()>;
  // One STS request through the driver: unsigned when `signs` is false,
  // else signed with `signer` (null: the client's provider).
  FLOE_DECL boost::asio::awaitable<result<std::string>> call(std::string_view operation, std::string const& resource,
                                                             body_builder const& body, bool signs,
                                                             credentials::credentials const* signer,
                                                             bool credential_fetch);
  FLOE_DECL boost::asio::awaitable<result<assumed_role>> run_web_identity(web_identity_request r, token_source t);
  FLOE_DECL boost::asio::awaitable<result<assumed_role>> run_assume_role(assume_role_request r,
                                                                         credentials::credentials c);
  FLOE_DECL boost::asio::awaitable<result<caller_identity>> run_caller_identity(credentials::credentials c, bool given);
  FLOE_DECL static service::description service_description() noexcept;

  client_config cfg_;
  endpoint_config endpoint_;
  http::endpoint http_endpoint_;
  http::client http_;
  service::driver driver_;
  statistics stats_;
};

}  // namespace floe::sts

#if defined(FLOE_HEADER_ONLY)
#include <floe/sts/impl/client.ipp>
#endif
