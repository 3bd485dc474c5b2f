#pragma once
#include <floe/s3/detail/out_file.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

namespace floe::s3::detail {

FLOE_DECL bool out_file::open(std::string const& path) {
  target = path;
  struct stat st {};
  bool const exists = ::stat(path.c_str(), &st) == 0;
  if (exists && !S_ISREG(st.st_mode)) {
    fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    return fd >= 0;
  }
  if (exists) {
    if (::access(path.c_str(), W_OK) != 0) return false;  // as opening it for writing would
    if (char* real = ::realpath(path.c_str(), nullptr)) {
      target = real;
      std::free(real);
    }
  }
  auto const slash = target.rfind('/');
  std::string const dir = slash == std::string::npos ? std::string() : target.substr(0, slash + 1);
  std::string const base = slash == std::string::npos ? target : target.substr(slash + 1);
  static std::atomic<unsigned> counter{0};
  for (int tries = 0; tries < 100; ++tries) {
    auto const stamp = std::chrono::steady_clock::now().time_since_epoch().count();
    temp = dir + "." + base + ".floe-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + "-" +
           std::to_string(static_cast<unsigned long long>(stamp) % 1000000007ull);
    fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0) {
      // The replacement keeps the permissions the target had.
      if (exists) (void)::fchmod(fd, st.st_mode & 07777);
      return true;
    }
    if (errno != EEXIST) break;
  }
  temp.clear();
  return false;
}

FLOE_DECL int out_file::write(std::string_view piece, std::uint64_t& written) noexcept {
  while (!piece.empty()) {
    auto n = ::write(fd, piece.data(), piece.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    piece.remove_prefix(static_cast<std::size_t>(n));
    written += static_cast<std::uint64_t>(n);
  }
  return 0;
}

FLOE_DECL bool out_file::rewind() noexcept {
  if (fd < 0 || temp.empty()) return false;
  return ::ftruncate(fd, 0) == 0 && ::lseek(fd, 0, SEEK_SET) == 0;
}

FLOE_DECL std::string out_file::commit() {
  int const f = fd;
  fd = -1;
  if (::close(f) != 0) return std::string("closing ") + (temp.empty() ? target : temp) + ": " + std::strerror(errno);
  if (temp.empty()) return {};
  if (::rename(temp.c_str(), target.c_str()) != 0) return "renaming " + temp + " to " + target + ": " + std::strerror(errno);
  temp.clear();
  return {};
}

FLOE_DECL void out_file::discard() noexcept {
  if (fd >= 0) ::close(fd);
  fd = -1;
  if (!temp.empty()) ::unlink(temp.c_str());
  temp.clear();
}

}  // namespace floe::s3::detail
