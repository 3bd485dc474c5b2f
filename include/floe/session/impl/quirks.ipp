#pragma once
#include <floe/session/quirks.hpp>

namespace floe {

FLOE_DECL bool store_quirks::unquoted_if_match(std::string const& endpoint) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = unquoted_.find(endpoint);
  return it != unquoted_.end() && it->second;
}

FLOE_DECL void store_quirks::set_unquoted_if_match(std::string const& endpoint, bool on) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (on)
    unquoted_[endpoint] = true;
  else
    unquoted_.erase(endpoint);
}

FLOE_DECL std::optional<bool> store_quirks::honours_delete_if_match(std::string const& endpoint) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = delete_if_match_.find(endpoint);
  if (it == delete_if_match_.end()) return std::nullopt;
  return it->second;
}

FLOE_DECL void store_quirks::set_honours_delete_if_match(std::string const& endpoint, bool on) {
  std::lock_guard<std::mutex> lock(mutex_);
  delete_if_match_[endpoint] = on;
}

FLOE_DECL bool store_quirks::refuses_trailer(std::string const& endpoint) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return no_trailer_.contains(endpoint);
}

FLOE_DECL void store_quirks::set_refuses_trailer(std::string const& endpoint) {
  std::lock_guard<std::mutex> lock(mutex_);
  no_trailer_[endpoint] = true;
}

FLOE_DECL bool store_quirks::refuses_complete_checksums(std::string const& endpoint) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return no_complete_checksums_.contains(endpoint);
}

FLOE_DECL void store_quirks::set_refuses_complete_checksums(std::string const& endpoint) {
  std::lock_guard<std::mutex> lock(mutex_);
  no_complete_checksums_[endpoint] = true;
}

}  // namespace floe
