#pragma once
// STS over the query protocol, the pure part: endpoint rules, request
// bodies, reply parsing, and which failures are worth another try.
//
// Pure: no I/O, no clock. The client (sts/client.hpp) sends what this builds.

#include <floe/config.hpp>
#include <floe/credentials/credentials.hpp>
#include <floe/credentials/environment.hpp>
#include <floe/endpoints/resolver.hpp>
#include <floe/result.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace floe::sts {

/// Where STS requests go and how they are signed.
struct endpoint_config {
  std::string url;            // "https://sts.eu-west-1.amazonaws.com"
  std::string signing_region; // "eu-west-1"; "us-east-1" for the global endpoint
  std::string source;         // for messages: "AWS_ENDPOINT_URL_STS", "regional", ...
};

/// What the caller says about the endpoint; empty fields are looked up.
struct endpoint_params {
  std::string endpoint_url;  // wins over everything
  std::string region;        // wins over AWS_REGION / AWS_DEFAULT_REGION
};

/// The endpoint, in this order: params.endpoint_url; AWS_ENDPOINT_URL_STS;
/// AWS_ENDPOINT_URL (both ignored when AWS_IGNORE_CONFIGURED_ENDPOINT_URLS
/// is "true"); the regional endpoint https://sts.<region>.<suffix> when
/// a region is known (params.region, AWS_REGION, AWS_DEFAULT_REGION); the
/// global endpoint https://sts.amazonaws.com (signed for us-east-1)
/// otherwise. Errors: errc::invalid_argument for a URL that is not
/// http(s)://host[:port][/] or a region with characters outside [a-z0-9-].
FLOE_DECL result<endpoint_config> resolve_endpoint(endpoint_params const& p, credentials::env_lookup const& env);

/// The same through a shared endpoint resolver (endpoints/resolver.hpp:
/// AWS_ENDPOINT_URL_STS, AWS_ENDPOINT_URL, the profile's services section
/// and endpoint_url) and the region a shared configuration chose
/// (`region`, read from `region_source`; empty: none). AWS's regional
/// endpoint is https://sts.<region>.<partition suffix> (amazonaws.com.cn
/// for cn-*).
FLOE_DECL result<endpoint_config> resolve_endpoint(endpoint_params const& p, endpoints::resolver const& resolver,
                                                  std::string_view region, std::string_view region_source);

/// AssumeRoleWithWebIdentity (unsigned).
struct web_identity_request {
  std::string role_arn;
  std::string role_session_name;
  std::string web_identity_token;  // the token itself (read from the file per try)
  std::chrono::seconds duration{0};  // 0: the role's default
  std::string policy;              // optional session policy (JSON)
};

/// AssumeRole (signed with the caller's credentials; role chaining).
struct assume_role_request {
  std::string role_arn;
  std::string role_session_name;
  std::chrono::seconds duration{0};
  std::string external_id;
  std::string policy;
};

/// The application/x-www-form-urlencoded bodies (Version=2011-06-15).
/// Values are percent-encoded (RFC 3986 unreserved kept). Errors:
/// errc::invalid_argument when the role ARN, the session name or the token
/// is empty, or the session name is not 2..64 of [\w+=,.@-].
FLOE_DECL result<std::string> web_identity_body(web_identity_request const& r);
FLOE_DECL result<std::string> assume_role_body(assume_role_request const& r);
FLOE_DECL std::string caller_identity_body();

/// What AssumeRole* returns.
struct assumed_role {
  credentials::credentials creds;  // expiry set; source left to the caller
  std::string assumed_role_arn;
  std::string assumed_role_id;
  std::string subject_from_web_identity_token;  // web identity only
};

/// Parses an AssumeRoleResponse / AssumeRoleWithWebIdentityResponse body.
/// Errors: errc::malformed_reply (not XML, no Credentials, a missing field,
/// an unreadable Expiration), the xml errors (too large, DOCTYPE, too deep).
/// Messages never contain the secret or the token.
FLOE_DECL result<assumed_role> parse_assume_role_reply(std::string_view body);

struct caller_identity {
  std::string account;
  std::string arn;
  std::string user_id;
};

FLOE_DECL result<caller_identity> parse_caller_identity_reply(std::string_view body);

/// Whether an STS error code is worth another try with a fresh read of the
/// token: IDPCommunicationError, InvalidIdentityToken (the OIDC provider's
/// keys may not have propagated yet), and the throttling codes. Never
/// ExpiredTokenException (the token itself expired) or AccessDenied.
FLOE_DECL bool is_retryable_sts_code(std::string_view code) noexcept;

/// A role session name when none is configured: "floe-<unix ms>".
FLOE_DECL std::string default_session_name(std::chrono::system_clock::time_point now);

}  // namespace floe::sts

#if defined(FLOE_HEADER_ONLY)
#include <floe/sts/impl/protocol.ipp>
#endif
