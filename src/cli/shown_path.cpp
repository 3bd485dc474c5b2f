// Local paths relative to the working directory, for operation lines.

#include "shown_path.hpp"

#include <filesystem>
#include <system_error>

namespace floe::cli {

namespace fs = std::filesystem;

std::string shown_path(std::string_view path, std::string_view cwd) {
  if (path.empty() || cwd.empty() || cwd.front() != '/') return std::string(path);
  fs::path p(path);
  if (p.is_relative()) p = fs::path(cwd) / p;
  p = p.lexically_normal();
  fs::path const name = p.filename();
  fs::path dir = p.parent_path();
  if (name.empty()) return std::string(path);  // a directory ("d/"): as typed
  fs::path rel = dir.lexically_relative(fs::path(cwd).lexically_normal());
  if (rel.empty()) return std::string(path);
  return (rel / name).string();
}

std::string shown_path(std::string_view path) {
  // The CLI never changes directory: asked once.
  static std::string const cwd = [] {
    std::error_code ec;
    auto p = fs::current_path(ec);
    return ec ? std::string() : p.string();
  }();
  return shown_path(path, cwd);
}

}  // namespace floe::cli
