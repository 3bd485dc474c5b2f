#pragma once
// The POSIX calls behind file bodies (a request body read from a file, a
// reply body written to one): plain blocking calls on a regular file.

#include <boost/system/error_code.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <string_view>

namespace floe::http::detail {

// A file descriptor closed on scope exit.
struct unique_fd {
  int fd = -1;
  unique_fd() = default;
  explicit unique_fd(int f) : fd(f) {}
  unique_fd(unique_fd const&) = delete;
  unique_fd& operator=(unique_fd const&) = delete;
  ~unique_fd() {
    if (fd >= 0) ::close(fd);
  }
};

inline boost::system::error_code errno_code() { return {errno, boost::system::system_category()}; }

// Writes all of `bytes`; returns how many went before a failure (ec set).
inline std::size_t write_all(int fd, std::string_view bytes, boost::system::error_code& ec) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    auto const n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      ec = errno_code();
      return done;
    }
    done += static_cast<std::size_t>(n);
  }
  return done;
}

}  // namespace floe::http::detail
