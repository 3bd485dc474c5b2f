#pragma once
// How floe reads the process environment: through a lookup function, so
// that a process may hold several configurations (a session each) and
// tests pass a map instead of changing the environment. floe's own code
// calls getenv in one place only: process_environment().

#include <floe/config.hpp>

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace floe {

/// Looks up one environment variable; nullopt when unset.
using env_lookup = std::function<std::optional<std::string>(std::string_view name)>;

/// The process environment (std::getenv). Like getenv itself, not safe
/// against a concurrent setenv.
FLOE_DECL env_lookup process_environment();

/// An environment with nothing set.
FLOE_DECL env_lookup empty_environment();

/// `env`, or the process environment when `env` is empty.
FLOE_DECL env_lookup environment_or_process(env_lookup env);

/// The variable's value, or nullopt when it is unset or empty (the SDKs
/// treat an empty AWS_* variable as unset). A null `env` has nothing set.
FLOE_DECL std::optional<std::string> non_empty(env_lookup const& env, std::string_view name);

}  // namespace floe

#if defined(FLOE_HEADER_ONLY)
#include <floe/impl/environment.ipp>
#endif
