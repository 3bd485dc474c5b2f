#pragma once
// Environment access through an injectable lookup, and the environment
// credentials source (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
// AWS_SESSION_TOKEN, AWS_CREDENTIAL_EXPIRATION).

#include <floe/config.hpp>
#include <floe/credentials/credentials.hpp>
#include <floe/result.hpp>

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace floe::credentials {

/// Looks up one environment variable; nullopt when unset. Everything in floe
/// that reads the environment takes one of these, so tests pass a lambda
/// over a map instead of mutating the process environment.
using env_lookup = std::function<std::optional<std::string>(std::string_view name)>;

/// The process environment (std::getenv). Like getenv itself, not safe
/// against a concurrent setenv.
FLOE_DECL env_lookup process_environment();

/// An environment with nothing set.
FLOE_DECL env_lookup empty_environment();

/// The variable's value, or nullopt when it is unset or empty (the SDKs
/// treat an empty AWS_* variable as unset).
FLOE_DECL std::optional<std::string> non_empty(env_lookup const& env, std::string_view name);

/// Credentials from the environment:
/// - nullopt when neither AWS_ACCESS_KEY_ID nor AWS_SECRET_ACCESS_KEY is set
///   (the source is not configured; the next source is asked);
/// - errc::invalid_argument when only one of the two is set, when a value
///   cannot go into a header, or when AWS_CREDENTIAL_EXPIRATION is not an
///   ISO 8601 timestamp (the source is configured but broken: a chain stops
///   here rather than silently using another identity);
/// - otherwise the set, source "environment". AWS_SESSION_TOKEN is optional
///   (AWS_SECURITY_TOKEN, its old name, is read when it is unset).
FLOE_DECL result<std::optional<credentials>> credentials_from_environment(env_lookup const& env);

}  // namespace floe::credentials

#if defined(FLOE_HEADER_ONLY)
#include <floe/credentials/impl/environment.ipp>
#endif
