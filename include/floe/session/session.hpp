#pragma once
// floe::session: the configuration clients are made from — an explicit
// object, not a global (a process may hold several). It holds the
// environment lookup, the profile read from the shared files, the region,
// one endpoint resolver for every service id, ONE credentials provider (so
// one refreshing cache: an S3 and an SQS client made from one session make
// one STS call per refresh between them), the HTTP settings (TLS, proxy,
// timeouts, the exchange observer) every client starts from, and what the
// clients have learned about stores (quirks.hpp).
//
//   auto s = floe::make_session(ex, {});                 // providers/default_session.hpp
//   auto s3 = floe::s3::client::create(ex, *s, {});      // clients share its provider
//   auto sts = floe::sts::client::create(ex, *s);
//
// session::create takes the provider from the caller (null: none; a signed
// request then fails with errc::credentials_unavailable); make_session
// builds the default chain when none is given. Clients keep the session's
// parts they use (shared pointers): the session may be destroyed first.
//
// Threading: immutable after create, except what the provider does
// (credentials/provider.hpp says what is safe).

#include <floe/config.hpp>
#include <floe/credentials/profile.hpp>
#include <floe/credentials/provider.hpp>
#include <floe/credentials/shared_files.hpp>
#include <floe/endpoints/resolver.hpp>
#include <floe/environment.hpp>
#include <floe/http/client_config.hpp>
#include <floe/http/url.hpp>
#include <floe/result.hpp>
#include <floe/session/quirks.hpp>

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace floe {

/// Where a service's requests go, as a client made from a session needs it.
struct service_endpoint {
  http::endpoint ep;           // scheme, host, port: what http::client connects to
  std::string base_path;       // "" or "/prefix": requests' paths start with it
  std::string signing_region;  // the region requests are signed for
  std::string source;          // where it came from: "AWS_ENDPOINT_URL_SQS", "default", ...
  bool custom = false;         // a configured endpoint rather than AWS's own
};

struct session_params {
  /// Environment lookup; null: the process environment (the one place
  /// floe's own code calls getenv).
  env_lookup env;
  /// Profile and shared-file locations (empty: AWS_PROFILE, ~/.aws/...).
  credentials::shared_files_params shared_files;
  /// The region; empty: AWS_REGION, AWS_DEFAULT_REGION, the profile's.
  std::string region;
  /// Where every client's credentials come from; null: none with
  /// session::create, the default chain with make_session.
  std::shared_ptr<credentials::provider> credentials;
  /// What every client's HTTP settings start from: TLS, proxy, timeouts,
  /// retry mode, the exchange observer, resolve overrides. The proxy is
  /// read from the environment lookup when `proxy_from_env` is set.
  http::client_config http;
  bool proxy_from_env = true;
};

class session {
 public:
  /// Reads the environment and the shared files once. Errors: a profile
  /// named explicitly that does not exist, a shared file that does not
  /// parse, a bad endpoint setting (errc::invalid_argument, naming where).
  FLOE_DECL static result<std::shared_ptr<session>> create(session_params p);

  env_lookup const& env() const noexcept { return env_; }
  /// The profile in use, when the shared files have it.
  credentials::profile const* profile() const noexcept { return profile_ ? &*profile_ : nullptr; }
  credentials::shared_files_location const& shared_files() const noexcept { return where_; }
  credentials::shared_files_params const& shared_files_params() const noexcept { return files_params_; }
  /// The region (empty: none configured) and where it came from.
  std::string const& region() const noexcept { return region_; }
  std::string const& region_source() const noexcept { return region_source_; }
  /// One resolver for every service id (endpoints/resolver.hpp).
  endpoints::resolver const& endpoints() const noexcept { return endpoints_; }
  /// The endpoint of `service_id` ("sqs", "sts", ...) by the resolver's
  /// rules, `caller_url` first, in the session's region. Errors: those of
  /// endpoints::resolver::resolve (a URL that does not parse, a region that
  /// cannot be in a host name or none where one is needed), naming where.
  FLOE_DECL result<service_endpoint> endpoint_for(std::string_view service_id, std::string_view caller_url = {}) const;
  /// The one provider every client made from this session signs with.
  std::shared_ptr<credentials::provider> const& credentials() const noexcept { return provider_; }
  /// The HTTP settings every client starts from.
  http::client_config const& http() const noexcept { return http_; }
  /// What the clients made from this session have learned about stores.
  std::shared_ptr<store_quirks> const& quirks() const noexcept { return quirks_; }

  session(session const&) = delete;
  session& operator=(session const&) = delete;

 private:
  session() = default;

  env_lookup env_;
  credentials::shared_files_params files_params_;
  credentials::shared_files_location where_;
  std::optional<credentials::profile> profile_;
  std::string region_;
  std::string region_source_;
  endpoints::resolver endpoints_;
  std::shared_ptr<credentials::provider> provider_;
  http::client_config http_;
  std::shared_ptr<store_quirks> quirks_ = std::make_shared<store_quirks>();
};

}  // namespace floe

#if defined(FLOE_HEADER_ONLY)
#include <floe/session/impl/session.ipp>
#endif
