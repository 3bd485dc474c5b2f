#pragma once
// What a profile's credentials are made of, resolved from the shared files
// the way botocore resolves them. Pure: parsed files in, a plan out; the
// default chain (chain.hpp) turns the plan into providers.
//
// A profile yields credentials from one base and zero or more roles
// assumed on top of it, in order:
//   base: static keys | web identity (role_arn + web_identity_token_file) |
//         SSO (sso_account_id + sso_role_name, with sso_session or the
//         legacy sso_start_url + sso_region) | credential_process |
//         credential_source (Environment, EcsContainer, Ec2InstanceMetadata)
//   roles: each role_arn + source_profile hop, innermost first.
//
// The profile named by the caller is read in botocore's order: role_arn
// (with source_profile, credential_source or web_identity_token_file)
// first; then SSO; then the credentials file's static keys; then
// credential_process; then the config file's static keys (botocore's
// SharedCredentialProvider, ProcessProvider, ConfigProvider in that order:
// a credential_process beats keys written in the config file, not keys in
// the credentials file). A source_profile that has static keys (in either
// file) skips its role_arn (so a profile that names itself as its source
// and has keys uses those keys, as botocore allows) and is read in the
// same base order: SSO, credentials-file keys, credential_process,
// config-file keys.
// A source_profile that leads back to a profile already on the path is a
// cycle: errc::invalid_argument naming it ("a -> b -> a").

#include <floe/config.hpp>
#include <floe/credentials/credentials.hpp>
#include <floe/credentials/profile.hpp>
#include <floe/result.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace floe::credentials {

/// One AssumeRole hop.
struct role_step {
  std::string profile;  // the profile that names the role
  std::string role_arn;
  std::string session_name;  // role_session_name; empty: generated per call
  std::string external_id;
  std::chrono::seconds duration{0};  // duration_seconds; 0: the role's default
};

enum class profile_base_kind {
  static_keys,
  web_identity,
  process,
  environment,  // credential_source = Environment
  container,    // credential_source = EcsContainer
  imds,         // credential_source = Ec2InstanceMetadata
  sso,          // sso_account_id + sso_role_name (sso.hpp)
};

/// The name used in messages: "static keys", "credential_process", ...
FLOE_DECL std::string_view to_string(profile_base_kind k) noexcept;

struct profile_plan {
  profile_base_kind base = profile_base_kind::static_keys;
  std::string base_profile;                 // the profile the base comes from
  std::optional<credentials> static_keys;   // base == static_keys
  std::string web_identity_role_arn;        // base == web_identity
  std::string web_identity_token_file;
  std::string web_identity_session_name;
  std::string process_command;              // base == process
  // base == sso: the profile's settings, merged with its [sso-session NAME]
  // section when sso_session names one (sso_session empty: legacy form).
  std::string sso_session;
  std::string sso_start_url;
  std::string sso_region;
  std::string sso_account_id;
  std::string sso_role_name;
  std::vector<role_step> roles;             // innermost first
  std::vector<std::string> path;            // profiles visited, outermost first
  /// "profile top -> role arn:... (source_profile base: static keys)", for messages.
  FLOE_DECL std::string describe() const;
};

/// Resolves profile `name`. Errors: errc::credentials_unavailable when the
/// profile exists but yields no credentials at all (or does not exist: the
/// message from explain_missing); errc::invalid_argument when it is
/// configured but broken: a cycle (named), a source_profile that does not
/// exist, source_profile and credential_source both set, an unknown
/// credential_source, role_arn with neither, a bad duration_seconds, a
/// broken static key pair, an SSO profile missing one of sso_start_url,
/// sso_region, sso_account_id, sso_role_name (named), an sso_session with
/// no [sso-session NAME] section, a setting whose value differs between the
/// profile and its sso-session section.
FLOE_DECL result<profile_plan> resolve_profile_plan(shared_config const& files, std::string_view name);

}  // namespace floe::credentials

#if defined(FLOE_HEADER_ONLY)
#include <floe/credentials/impl/profile_chain.ipp>
#endif
