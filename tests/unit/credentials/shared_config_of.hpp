#pragma once
// What the pure credential-chain tests share: a shared_config parsed from
// the text of a config file and a credentials file (at the usual paths of a
// user u, profile "default"), and a substring check for messages.
#include <floe/credentials/shared_files.hpp>

#include <doctest/doctest.h>

#include <string>

inline floe::credentials::shared_config shared_config_of(std::string const& config, std::string const& creds = "") {
  floe::credentials::shared_files_location w;
  w.profile = "default";
  w.profile_source = "default";
  w.config_file = "/home/u/.aws/config";
  w.credentials_file = "/home/u/.aws/credentials";
  auto r = floe::credentials::parse_shared_config(w, config, creds);
  REQUIRE(r.has_value());
  return *r;
}

inline bool contains(std::string const& hay, std::string const& needle) {
  return hay.find(needle) != std::string::npos;
}
