#pragma once
// A loopback HTTP server for tests that need a peer misbehaving in one exact
// way (a reply head too large, a 100 Continue never sent, a connection closed
// after reading a request, SNI recorded...). It listens on 127.0.0.1 on a
// free port and runs each accepted connection's `script` on a thread of its
// own with blocking sockets, optionally behind TLS (OpenSSL, recording the
// SNI each client sent). Independent of the client under test: no Asio, no
// floe code.
//
// Lifetime: the destructor shuts every connection down (waking blocked reads
// and writes) and joins the threads; a script must return once its socket
// fails.
//
// SIGPIPE: OpenSSL writes to its socket BIO with write(), which raises
// SIGPIPE once the peer has gone. The server blocks SIGPIPE in its own
// threads only (the signal a write raises is directed at the writing
// thread: it stays pending there and is dropped when the thread ends; the
// write fails with EPIPE), so the test program keeps the default
// disposition and a SIGPIPE raised by floe's own writes would still end it.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include "loopback_socket.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace floe::test {

/// Named counters that scripts bump and tests read (thread-safe).
class script_counters {
 public:
  void count(std::string const& what) {
    std::lock_guard lk(mu_);
    for (auto& [k, v] : counters_)
      if (k == what) {
        ++v;
        return;
      }
    counters_.emplace_back(what, 1);
  }
  unsigned get(std::string const& what) const {
    std::lock_guard lk(mu_);
    for (auto const& [k, v] : counters_)
      if (k == what) return v;
    return 0;
  }

 private:
  mutable std::mutex mu_;
  std::vector<std::pair<std::string, unsigned>> counters_;
};

/// One accepted connection, as a script sees it.
class scripted_connection {
 public:
  scripted_connection(int fd, SSL* ssl, unsigned index, script_counters& counters)
      : fd_(fd), ssl_(ssl), index_(index), counters_(counters) {}
  scripted_connection(scripted_connection const&) = delete;
  scripted_connection& operator=(scripted_connection const&) = delete;

  /// 1-based, in accept order.
  unsigned index() const noexcept { return index_; }

  /// Bumps the server's counter `what` (read with scripted_server::counter).
  void count(std::string const& what) { counters_.count(what); }

  /// Reads up to and including the blank line ending a request head.
  /// Empty: the peer closed (or the socket failed) first.
  std::string read_head() {
    for (;;) {
      if (auto end = buf_.find("\r\n\r\n"); end != std::string::npos) {
        std::string head = buf_.substr(0, end + 4);
        buf_.erase(0, end + 4);
        return head;
      }
      if (!fill()) return {};
    }
  }

  /// Reads exactly n body bytes (fewer when the peer closed first).
  std::string read_exact(std::size_t n) {
    while (buf_.size() < n)
      if (!fill()) break;
    std::string out = buf_.substr(0, std::min(n, buf_.size()));
    buf_.erase(0, out.size());
    return out;
  }

  /// Waits until the peer closes (true) or `limit` passes (false).
  bool wait_closed(std::chrono::milliseconds limit) {
    auto const deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 50) > 0) {
        if (!fill()) return true;
      }
    }
    return false;
  }

  bool write(std::string_view s) {
    while (!s.empty()) {
      long n = 0;
      if (ssl_) {
        n = SSL_write(ssl_, s.data(), static_cast<int>(s.size()));
        if (n <= 0) return false;
      } else {
        n = ::send(fd_, s.data(), s.size(), MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
      }
      s.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
  }

  /// A complete reply with a Content-Length.
  bool reply(unsigned status, std::string_view body, std::string_view extra_headers = {}) {
    std::string r = "HTTP/1.1 " + std::to_string(status) + " X\r\nContent-Length: " + std::to_string(body.size()) +
                    "\r\n";
    r.append(extra_headers);
    r.append("\r\n");
    r.append(body);
    return write(r);
  }

  /// Closes the connection now (FIN), before the server's own cleanup.
  void close() {
    if (closed_) return;
    closed_ = true;
    if (ssl_) SSL_shutdown(ssl_);
    ::shutdown(fd_, SHUT_RDWR);
  }

  /// The value of header `name` in `head` (case-insensitive name), or empty.
  static std::string header(std::string_view head, std::string_view name) {
    std::size_t pos = head.find("\r\n");
    while (pos != std::string_view::npos && pos + 2 < head.size()) {
      auto const start = pos + 2;
      auto const end = head.find("\r\n", start);
      if (end == std::string_view::npos) break;
      auto const line = head.substr(start, end - start);
      auto const colon = line.find(':');
      if (colon != std::string_view::npos && colon == name.size()) {
        bool same = true;
        for (std::size_t i = 0; i < name.size(); ++i)
          if (std::tolower(static_cast<unsigned char>(line[i])) != std::tolower(static_cast<unsigned char>(name[i])))
            same = false;
        if (same) {
          auto v = line.substr(colon + 1);
          while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
          while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
          return std::string(v);
        }
      }
      pos = end;
    }
    return {};
  }

  /// The request's Content-Length (0 when absent).
  static std::size_t content_length(std::string_view head) {
    auto const v = header(head, "Content-Length");
    return v.empty() ? 0 : static_cast<std::size_t>(std::stoull(v));
  }

 private:
  bool fill() {
    char tmp[16384];
    for (;;) {
      long n = 0;
      if (ssl_) {
        n = SSL_read(ssl_, tmp, sizeof tmp);
      } else {
        n = ::recv(fd_, tmp, sizeof tmp, 0);
        if (n < 0 && errno == EINTR) continue;
      }
      if (n <= 0) return false;
      buf_.append(tmp, static_cast<std::size_t>(n));
      return true;
    }
  }

  int fd_;
  SSL* ssl_;
  unsigned index_;
  script_counters& counters_;
  bool closed_ = false;
  std::string buf_;
};

/// PEM files of a server certificate and its key.
struct tls_files {
  std::string cert;
  std::string key;
};

class scripted_server {
 public:
  using script = std::function<void(scripted_connection&)>;

  /// Listens on 127.0.0.1 (a free port); with `tls`, each connection does a
  /// TLS handshake first (and its SNI is recorded) before `s` runs.
  explicit scripted_server(script s, std::optional<tls_files> const& tls = std::nullopt) : script_(std::move(s)) {
    if (tls) {
      ctx_ = SSL_CTX_new(TLS_server_method());
      if (!ctx_ || SSL_CTX_use_certificate_chain_file(ctx_, tls->cert.c_str()) != 1 ||
          SSL_CTX_use_PrivateKey_file(ctx_, tls->key.c_str(), SSL_FILETYPE_PEM) != 1)
        throw std::runtime_error("scripted_server: cannot load " + tls->cert + " / " + tls->key);
      // SSL_CTX_set_tlsext_servername_callback without its C cast.
      SSL_CTX_callback_ctrl(ctx_, SSL_CTRL_SET_TLSEXT_SERVERNAME_CB,
                            reinterpret_cast<void (*)()>(&scripted_server::on_servername));
      SSL_CTX_set_tlsext_servername_arg(ctx_, this);
    }
    listen_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (listen_ < 0) throw std::runtime_error("scripted_server: socket failed");
    int one = 1;
    ::setsockopt(listen_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    port_ = ntohs(bind_loopback(listen_).sin_port);
    if (::listen(listen_, 64) != 0)
      throw std::runtime_error(std::string("scripted_server: listen failed: ") + std::strerror(errno));
    acceptor_ = std::thread([this] { accept_loop(); });
  }

  ~scripted_server() {
    stop_ = true;
    acceptor_.join();
    {
      std::lock_guard lk(mu_);
      for (int fd : fds_) ::shutdown(fd, SHUT_RDWR);
    }
    for (auto& t : threads_) t.join();
    // Descriptors are closed only now, every thread joined, so that no
    // shutdown() above can hit a number the system has handed out again.
    for (int fd : fds_) ::close(fd);
    ::close(listen_);
    if (ctx_) SSL_CTX_free(ctx_);
  }

  scripted_server(scripted_server const&) = delete;
  scripted_server& operator=(scripted_server const&) = delete;

  std::uint16_t port() const noexcept { return port_; }

  /// Connections accepted so far.
  unsigned connections() const {
    std::lock_guard lk(mu_);
    return accepted_;
  }

  /// The SNI of each TLS handshake, in order; "" for a ClientHello without one.
  std::vector<std::string> server_names() const {
    std::lock_guard lk(mu_);
    return names_;
  }

  /// A counter the scripts keep (scripted_connection::count); 0 if never bumped.
  unsigned counter(std::string const& what) const { return counters_.get(what); }

 private:
  static int on_servername(SSL* ssl, int*, void* arg) {
    auto* self = static_cast<scripted_server*>(arg);
    char const* name = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name);
    std::lock_guard lk(self->mu_);
    self->names_.emplace_back(name ? name : "");
    self->sni_seen_.push_back(ssl);
    return SSL_TLSEXT_ERR_OK;
  }

  void accept_loop() {
    // Inherited by every connection's thread, started from this one.
    sigset_t pipe;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe, nullptr);
    while (!stop_) {
      pollfd p{listen_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      int fd = ::accept4(listen_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) continue;
      unsigned index = 0;
      {
        std::lock_guard lk(mu_);
        index = ++accepted_;
        fds_.push_back(fd);
      }
      threads_.emplace_back([this, fd, index] { serve(fd, index); });
    }
  }

  void serve(int fd, unsigned index) {
    SSL* ssl = nullptr;
    if (ctx_) {
      ssl = SSL_new(ctx_);
      SSL_set_fd(ssl, fd);
      bool const ok = SSL_accept(ssl) == 1;
      {
        // A ClientHello without SNI never calls the callback: record "".
        std::lock_guard lk(mu_);
        bool seen = false;
        for (SSL* s : sni_seen_) seen = seen || s == ssl;
        if (!seen) names_.emplace_back("");
        std::erase(sni_seen_, ssl);
      }
      if (!ok) {
        ERR_clear_error();
        SSL_free(ssl);
        ::shutdown(fd, SHUT_RDWR);
        return;
      }
    }
    {
      scripted_connection c(fd, ssl, index, counters_);
      script_(c);
      c.close();
    }
    if (ssl) SSL_free(ssl);
  }

  script script_;
  SSL_CTX* ctx_ = nullptr;
  int listen_ = -1;
  std::uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread acceptor_;
  mutable std::mutex mu_;
  unsigned accepted_ = 0;
  std::vector<int> fds_;
  std::vector<std::thread> threads_;
  std::vector<std::string> names_;
  std::vector<SSL*> sni_seen_;
  script_counters counters_;
};

}  // namespace floe::test
