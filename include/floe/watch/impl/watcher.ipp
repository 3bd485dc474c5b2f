#pragma once
#include <floe/watch/watcher.hpp>

namespace floe::watch {

FLOE_DECL std::string_view to_string(log_level l) noexcept {
  switch (l) {
    case log_level::info: return "info";
    case log_level::warning: return "warning";
    case log_level::error: return "error";
  }
  return "info";
}

}  // namespace floe::watch
