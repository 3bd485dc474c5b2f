#pragma once
// An env_lookup over a fixed map, so tests never touch the process environment.
#include <floe/credentials/environment.hpp>

#include <map>
#include <string>

inline floe::credentials::env_lookup env_of(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](std::string_view name) -> std::optional<std::string> {
    auto it = vars.find(std::string(name));
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}
