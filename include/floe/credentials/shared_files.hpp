#pragma once
// The shared-files credentials source: finds ~/.aws/config and
// ~/.aws/credentials and the profile to use, reads both files, and takes
// the profile's static keys (see profile.hpp for how profiles are named
// and merged). Locating and parsing are pure; only read_shared_file and
// load_shared_config touch the file system.

#include <floe/config.hpp>
#include <floe/credentials/credentials.hpp>
#include <floe/credentials/environment.hpp>
#include <floe/credentials/profile.hpp>
#include <floe/result.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace floe::credentials {

/// Settings from the caller; an empty field means "the usual place".
struct shared_files_params {
  std::string profile;           // else AWS_PROFILE, AWS_DEFAULT_PROFILE, "default"
  std::string config_file;       // else AWS_CONFIG_FILE, $HOME/.aws/config
  std::string credentials_file;  // else AWS_SHARED_CREDENTIALS_FILE, $HOME/.aws/credentials
};

/// Where the files are and which profile is meant.
struct shared_files_location {
  std::string profile;
  /// "caller", "AWS_PROFILE", "AWS_DEFAULT_PROFILE" or "default". A profile
  /// someone named must exist; the implicit "default" may be missing.
  std::string profile_source;
  std::string config_file;       // empty when it cannot be found (no HOME)
  std::string credentials_file;  // likewise
  bool explicit_profile() const noexcept { return profile_source != "default"; }
};

/// Resolves paths and profile name. Precedence: caller > environment >
/// default. AWS_PROFILE wins over AWS_DEFAULT_PROFILE (as in every SDK
/// except botocore, which reads them the other way round; AWS_DEFAULT_PROFILE
/// is the AWS CLI v1's legacy name). A leading "~" or "~/" expands to $HOME.
FLOE_DECL shared_files_location locate_shared_files(shared_files_params const& params, env_lookup const& env);

/// Files larger than this are refused: a profile file is a few kilobytes.
inline constexpr std::size_t max_shared_file_size = 4 * 1024 * 1024;

/// Reads a whole file. nullopt when it does not exist (ENOENT, ENOTDIR);
/// errc::invalid_argument naming the file for anything else (permission
/// denied, a directory, too large).
FLOE_DECL result<std::optional<std::string>> read_shared_file(std::string const& path);

/// Parses both files' contents (nullopt: the file does not exist). Pure.
FLOE_DECL result<shared_config> parse_shared_config(shared_files_location const& where,
                                                    std::optional<std::string_view> config_text,
                                                    std::optional<std::string_view> credentials_text);

/// read_shared_file on both paths, then parse_shared_config.
FLOE_DECL result<shared_config> load_shared_config(shared_files_location const& where);

/// The profile's static keys (credentials_from_profile), except that a
/// profile that does not exist is errc::invalid_argument when it was
/// named explicitly (as botocore's ProfileNotFound) and
/// errc::credentials_unavailable when it is the implicit "default".
FLOE_DECL result<credentials> credentials_from_shared_config(shared_config const& files,
                                                             shared_files_location const& where);

/// Everything above: locate, read, parse, take the keys.
FLOE_DECL result<credentials> credentials_from_shared_files(shared_files_params const& params, env_lookup const& env);

}  // namespace floe::credentials

#if defined(FLOE_HEADER_ONLY)
#include <floe/credentials/impl/shared_files.ipp>
#endif
