#pragma once
// Local paths as the operation lines show them ("upload: ./f to s3://b/k").

#include <string>
#include <string_view>

namespace floe::cli {

/// `path` as `aws s3` shows it: its directory relative to the working
/// directory `cwd`, then its name ("./f", "sub/f", "../other/f"), worked out
/// on the names alone (no link is followed); a path that cannot be made
/// relative (no working directory) is shown as given. Control characters
/// are left for printable() to escape.
std::string shown_path(std::string_view path, std::string_view cwd);

/// shown_path against the process's working directory.
std::string shown_path(std::string_view path);

}  // namespace floe::cli
