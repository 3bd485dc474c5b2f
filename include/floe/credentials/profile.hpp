#pragma once
// Profiles as the AWS SDKs see them, built from the parsed shared config
// file (~/.aws/config) and shared credentials file (~/.aws/credentials).
// Pure: parsed documents in, values out.
//
// Naming, as botocore applies it:
// - config file: "[profile NAME]" names profile NAME (the words are split
//   like a shell would, so "[profile  dev ]" is "dev" and
//   "[profile "my dev"]" is "my dev"; anything but exactly one name after
//   "profile" is ignored); "[default]" is the profile "default"; when both
//   "[default]" and "[profile default]" exist, the later section wins
//   whole. "[services NAME]" holds per-service settings; other sections
//   ("[dev]", "[sso-session x]") are not profiles.
// - credentials file: every section is a profile, named literally
//   ("[profile dev]" there is a profile called "profile dev").
// - merged view: the credentials file's settings override the config
//   file's, key by key.

#include <floe/config.hpp>
#include <floe/credentials/credentials.hpp>
#include <floe/credentials/ini.hpp>
#include <floe/endpoints/resolver.hpp>
#include <floe/result.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace floe::credentials {

/// A setting of a profile and the file it was read from.
struct profile_setting {
  ini_entry entry;
  std::string file;
  /// "file:line", for messages.
  std::string where() const { return file + ":" + std::to_string(entry.line); }
};

/// One profile, merged from both files.
struct profile {
  std::string name;
  std::vector<profile_setting> settings;
  /// The config file's "[services NAME]" section this profile names with
  /// `services = NAME`, when it exists.
  std::optional<ini_section> services;
  bool in_config = false;
  bool in_credentials = false;

  /// A top-level setting by key (lower-cased), or nullptr.
  FLOE_DECL profile_setting const* find(std::string_view key) const noexcept;
  /// The value of a plain (not nested) setting.
  FLOE_DECL std::optional<std::string_view> get(std::string_view key) const noexcept;
  /// The value of a setting inside a nested block: get_nested("s3", "addressing_style").
  FLOE_DECL std::optional<std::string_view> get_nested(std::string_view block, std::string_view key) const noexcept;
  /// A setting in the named service's block of the services section:
  /// service_setting("s3", "endpoint_url").
  FLOE_DECL std::optional<std::string_view> service_setting(std::string_view service,
                                                            std::string_view key) const noexcept;
  /// What the profile says about endpoints (endpoint_url, its services
  /// section, ignore_configured_endpoint_urls), for endpoints::resolver.
  FLOE_DECL endpoints::profile_settings endpoint_settings() const;
};

/// The name a config-file section gives a profile, or nullopt when the
/// section is not a profile.
FLOE_DECL std::optional<std::string> config_profile_name(std::string_view section_name);

/// Both shared files, parsed. A file that does not exist is nullopt.
struct shared_config {
  std::string config_file;       // path, for messages
  std::string credentials_file;  // path, for messages
  std::optional<ini_document> config;
  std::optional<ini_document> credentials;

  /// The config section that defines profile `name` ("[profile name]" or
  /// "[default]"; the later one when both exist), or nullptr.
  FLOE_DECL ini_section const* config_section(std::string_view name) const noexcept;
  /// The credentials section "[name]", or nullptr.
  FLOE_DECL ini_section const* credentials_section(std::string_view name) const noexcept;
  /// The merged profile, or nullopt when neither file defines it.
  FLOE_DECL std::optional<profile> find_profile(std::string_view name) const;
  /// Why `name` was not found, for an error message: which files were
  /// read, and near misses ("[dev]" in the config file, which must be
  /// written "[profile dev]").
  FLOE_DECL std::string explain_missing(std::string_view name) const;
};

/// The static keys of a profile, the way botocore's chain finds them: the
/// credentials file's section when it sets aws_access_key_id (its
/// aws_secret_access_key and aws_session_token then come from there too),
/// else the config file's section. Errors:
/// - errc::invalid_argument: a key id without a secret (or the reverse), or
///   a value that cannot go into a header; the message names file, line
///   and profile;
/// - errc::credentials_unavailable: the profile has no static keys (the
///   message says so, and names role_arn, credential_process, sso_session
///   or web_identity_token_file when the profile uses one of those; the
///   default chain reads those through resolve_profile_plan, profile_chain.hpp).
FLOE_DECL result<credentials> credentials_from_profile(shared_config const& files, std::string_view profile_name);

}  // namespace floe::credentials

#if defined(FLOE_HEADER_ONLY)
#include <floe/credentials/impl/profile.ipp>
#endif
