#pragma once
// watch --metrics ADDRESS:PORT: a small HTTP/1.1 server for /metrics and
// /healthz (Beast). GET or HEAD only; every request is read with bounded
// headers and no body, answered, and the connection closed; an idle
// connection is dropped after 5 s.

#include <floe/result.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>

namespace floe::cli {

/// status, content type, body
struct http_answer {
  unsigned status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
};

class metrics_server {
 public:
  using handler = std::function<http_answer(std::string_view target)>;

  /// Listens on `address` ("127.0.0.1:9100", "[::1]:9100"; port 0: any
  /// free port). Errors: invalid_argument for a bad address; the bind's.
  static result<std::unique_ptr<metrics_server>> start(boost::asio::any_io_executor ex, std::string_view address,
                                                       handler h);
  ~metrics_server();
  metrics_server(metrics_server const&) = delete;
  metrics_server& operator=(metrics_server const&) = delete;

  /// The address bound (the port a port 0 got).
  boost::asio::ip::tcp::endpoint local_endpoint() const;
  /// Closes the listener and every open connection; the handler is not
  /// called again.
  void stop();

  struct state;  // shared with the connections (watch_http.cpp)

 private:
  explicit metrics_server(std::shared_ptr<state> s) : s_(std::move(s)) {}
  std::shared_ptr<state> s_;
};

/// Parses ADDRESS:PORT (an IPv4 literal, or an IPv6 literal in brackets).
result<boost::asio::ip::tcp::endpoint> parse_listen_address(std::string_view text);

}  // namespace floe::cli
