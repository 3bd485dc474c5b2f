#pragma once
#include <floe/environment.hpp>

#include <cstdlib>

namespace floe {

FLOE_DECL env_lookup process_environment() {
  return [](std::string_view name) -> std::optional<std::string> {
    std::string n(name);
    if (char const* v = std::getenv(n.c_str())) return std::string(v);
    return std::nullopt;
  };
}

FLOE_DECL env_lookup empty_environment() {
  return [](std::string_view) -> std::optional<std::string> { return std::nullopt; };
}

FLOE_DECL env_lookup environment_or_process(env_lookup env) {
  return env ? std::move(env) : process_environment();
}

FLOE_DECL std::optional<std::string> non_empty(env_lookup const& env, std::string_view name) {
  if (!env) return std::nullopt;
  auto v = env(name);
  if (!v || v->empty()) return std::nullopt;
  return v;
}

}  // namespace floe
