#pragma once
// A temporary file next to where its contents will end up.

#include <floe/result.hpp>

#include <string>

namespace floe::cli {

/// Closed, and removed unless `keep`, on destruction. Known to the signal
/// handling (interrupt.hpp) from make_temp on: `path` must not change.
struct temp_file {
  std::string path;
  int fd = -1;
  bool keep = false;
  temp_file() = default;
  temp_file(temp_file const&) = delete;
  temp_file& operator=(temp_file const&) = delete;
  ~temp_file();
};

/// Creates `near` + ".floe-XXXXXX" (mode 0600) into `t`: beside `near`, on
/// the same file system, so that a rename onto `near` is atomic.
result<void> make_temp(temp_file& t, std::string const& near);

}  // namespace floe::cli
