#pragma once
// sts::client: AssumeRoleWithWebIdentity (unsigned), AssumeRole (signed;
// role chaining) and GetCallerIdentity, on an http::client of its own (so
// its own connection pool and retry quota: an STS outage never drains the
// quota of the S3 client, and the reverse).
//
// Retries: transport failures and 5xx are retried by the HTTP layer
// (standard mode, this client's quota). IDPCommunicationError, throttling
// (Throttling*, RequestLimitExceeded, ...) and InvalidIdentityToken (an
// OIDC provider whose keys have not propagated yet) are not resent as they
// are: they are tried again up to `max_attempts` in all, after a jittered
// back-off, building the request again each time (the web identity token is
// read again from its file), each retry charged to this client's quota.
// ExpiredTokenException (the token itself expired) and AccessDenied are
// never retried. A failure of a credential fetch is never classified
// stale_credentials: it must not invalidate anything.
//
// Threading: like http::client, a client runs on its executor; use it from
// one thread or a strand. Lifetimes: the client must outlive its operations;
// arguments are copied into the operation.
//
// GCC 12: bind request structs to named variables before a co_await
// expression (never pass `web_identity_request{...}` inside one).

#include <floe/config.hpp>
#include <floe/credentials/credentials.hpp>
#include <floe/credentials/environment.hpp>
#include <floe/http/client.hpp>
#include <floe/result.hpp>
#include <floe/sigv4/signer.hpp>
#include <floe/sts/protocol.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/deferred.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace floe::sts {

struct client_config {
  endpoint_params endpoint;
  /// Environment lookup (region, endpoint overrides); null: the process environment.
  credentials::env_lookup env;
  http::client_config http;
  /// Tries in all for the codes of is_retryable_sts_code, each built again
  /// (the HTTP layer's own retries of transport errors and 5xx come on top,
  /// inside each try; it never resends those codes itself).
  unsigned max_attempts = 3;
  /// Back-off between those tries: random01 x min(2^n x base, cap).
  std::chrono::milliseconds retry_base{500};
  std::chrono::milliseconds retry_cap{5000};
  /// The wall clock used for signing; null: system_clock::now.
  std::function<std::chrono::system_clock::time_point()> clock;
  /// Uniform draws in [0, 1) for the back-off; null: a seeded PRNG.
  std::function<double()> random;
};

/// Reads the web identity token for one try (e.g. from its file).
using token_source = std::function<result<std::string>()>;

class client {
 public:
  using executor_type = boost::asio::any_io_executor;

  struct statistics {
    std::uint64_t operations = 0;  // calls of async_*
    std::uint64_t tries = 0;       // requests built and sent (each may have HTTP-level retries)
    std::uint64_t token_reads = 0; // web identity tokens read
  };

  /// Resolves the endpoint (see resolve_endpoint). Errors: errc::invalid_argument.
  FLOE_DECL static result<std::unique_ptr<client>> create(executor_type ex, client_config cfg = {});

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
    return boost::asio::async_initiate<Token, void(result<assumed_role>)>(
        [this](auto handler, web_identity_request r, token_source t) {
          http::detail::spawn<void(result<assumed_role>)>(get_executor(), run_web_identity(std::move(r), std::move(t)),
                                                          std::move(handler));
        },
        tok, std::move(req), std::move(token));
  }

  /// AssumeRole, signed with `caller` (role chaining). Errors and
  /// cancellation as above.
  template <class Token = boost::asio::deferred_t>
  auto async_assume_role(assume_role_request req, credentials::credentials caller, Token&& tok = {}) {
    return boost::asio::async_initiate<Token, void(result<assumed_role>)>(
        [this](auto handler, assume_role_request r, credentials::credentials c) {
          http::detail::spawn<void(result<assumed_role>)>(get_executor(), run_assume_role(std::move(r), std::move(c)),
                                                          std::move(handler));
        },
        tok, std::move(req), std::move(caller));
  }

  /// GetCallerIdentity, signed with `caller`.
  template <class Token = boost::asio::deferred_t>
  auto async_get_caller_identity(credentials::credentials caller, Token&& tok = {}) {
    return boost::asio::async_initiate<Token, void(result<caller_identity>)>(
        [this](auto handler, credentials::credentials c) {
          http::detail::spawn<void(result<caller_identity>)>(get_executor(), run_caller_identity(std::move(c)),
                                                             std::move(handler));
        },
        tok, std::move(caller));
  }

 private:
  FLOE_DECL client(executor_type ex, client_config cfg, endpoint_config ep, http::endpoint hep);

  using body_builder = std::function<result<std::string>()>;
  FLOE_DECL boost::asio::awaitable<result<std::string>> call(std::string_view operation, std::string const& resource,
                                                             body_builder const& body,
                                                             credentials::credentials const* signer);
  FLOE_DECL boost::asio::awaitable<result<assumed_role>> run_web_identity(web_identity_request r, token_source t);
  FLOE_DECL boost::asio::awaitable<result<assumed_role>> run_assume_role(assume_role_request r,
                                                                         credentials::credentials c);
  FLOE_DECL boost::asio::awaitable<result<caller_identity>> run_caller_identity(credentials::credentials c);
  std::chrono::system_clock::time_point now() const { return cfg_.clock ? cfg_.clock() : std::chrono::system_clock::now(); }
  FLOE_DECL double draw();

  client_config cfg_;
  endpoint_config endpoint_;
  http::endpoint http_endpoint_;
  http::client http_;
  sigv4::signer signer_;
  sigv4::header_signature sig_;
  std::uint64_t rng_state_;
  statistics stats_;
};

}  // namespace floe::sts

#if defined(FLOE_HEADER_ONLY)
#include <floe/sts/impl/client.ipp>
#endif
