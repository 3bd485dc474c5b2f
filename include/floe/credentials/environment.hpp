#pragma once
// Environment access through an injectable lookup, and the environment
// credentials source (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
// AWS_SESSION_TOKEN, AWS_CREDENTIAL_EXPIRATION).

#include <floe/config.hpp>
#include <floe/credentials/credentials.hpp>
#include <floe/environment.hpp>
#include <floe/result.hpp>

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace floe::credentials {

/// The environment lookup (floe/environment.hpp), under the names the
/// credential code has always used.
using floe::empty_environment;
using floe::env_lookup;
using floe::non_empty;
using floe::process_environment;

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
