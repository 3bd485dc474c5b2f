#pragma once
// A TCP socket bound to a free port on 127.0.0.1, for tests that need a
// port of their own: bound and never listening, a connect to it is refused
// (and no other program can take the port while the test runs); listening
// and never accepting, a connect waits once its accept queue is full. The
// scripted server (scripted_server.hpp) binds its listener the same way.
// No Asio, no floe code.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

namespace floe::test {

/// Binds `fd` to a free port on 127.0.0.1 and returns its address.
inline sockaddr_in bind_loopback(int fd) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0)
    throw std::runtime_error(std::string("bind to 127.0.0.1 failed: ") + std::strerror(errno));
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  return a;
}

/// Owns a bound loopback socket; closed when destroyed.
class loopback_socket {
 public:
  loopback_socket() : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    if (fd_ < 0) throw std::runtime_error("socket failed");
    address_ = bind_loopback(fd_);
  }
  ~loopback_socket() { ::close(fd_); }
  loopback_socket(loopback_socket const&) = delete;
  loopback_socket& operator=(loopback_socket const&) = delete;

  int fd() const noexcept { return fd_; }
  std::uint16_t port() const noexcept { return ntohs(address_.sin_port); }
  sockaddr_in const& address() const noexcept { return address_; }

 private:
  int fd_;
  sockaddr_in address_{};
};

}  // namespace floe::test
