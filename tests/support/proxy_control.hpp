#pragma once
// A small synchronous client of the test proxy's JSON control API
// (tests/support/proxy/README.md), for C++ integration tests. Blocking
// Beast over a fresh loopback connection per call; throws std::runtime_error
// on any failure so a test stops with the reason.

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

namespace floe::test {

struct control_reply {
  unsigned status = 0;
  std::string body;
};

/// host and port of "http://host:port[/...]".
inline std::pair<std::string, std::string> split_http_url(std::string_view url) {
  if (url.substr(0, 7) != "http://") throw std::runtime_error("not an http:// URL: " + std::string(url));
  url.remove_prefix(7);
  url = url.substr(0, url.find('/'));
  auto const colon = url.rfind(':');
  if (colon == std::string_view::npos) return {std::string(url), "80"};
  return {std::string(url.substr(0, colon)), std::string(url.substr(colon + 1))};
}

/// One blocking HTTP/1.1 request to `base` ("http://127.0.0.1:C").
inline control_reply http_call(std::string const& base, std::string_view method, std::string_view path,
                               std::string_view body = {}) {
  namespace beast = boost::beast;
  namespace http = beast::http;
  using tcp = boost::asio::ip::tcp;
  auto [host, port] = split_http_url(base);
  boost::asio::io_context io;
  tcp::resolver resolver(io);
  tcp::socket sock(io);
  boost::asio::connect(sock, resolver.resolve(host, port));
  http::request<http::string_body> req(http::string_to_verb(method), std::string(path), 11);
  req.set(http::field::host, host + ":" + port);
  if (!body.empty()) req.set(http::field::content_type, "application/json");
  req.body() = std::string(body);
  req.prepare_payload();
  http::write(sock, req);
  beast::flat_buffer buf;
  http::response<http::string_body> res;
  http::read(sock, buf, res);
  boost::system::error_code ig;
  sock.shutdown(tcp::socket::shutdown_both, ig);
  return {res.result_int(), res.body()};
}

/// The integer value of "key" anywhere in a flat JSON object; throws if absent.
inline std::int64_t json_int(std::string_view json, std::string_view key) {
  std::string const needle = "\"" + std::string(key) + "\"";
  auto at = json.find(needle);
  if (at == std::string_view::npos) throw std::runtime_error("no \"" + std::string(key) + "\" in " + std::string(json));
  at = json.find(':', at + needle.size());
  if (at == std::string_view::npos) throw std::runtime_error("malformed JSON: " + std::string(json));
  ++at;
  while (at < json.size() && (json[at] == ' ' || json[at] == '\t' || json[at] == '\n')) ++at;
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(json.data() + at, json.data() + json.size(), v);
  if (ec != std::errc{}) throw std::runtime_error("\"" + std::string(key) + "\" is not an integer in " + std::string(json));
  (void)p;
  return v;
}

/// The control API of the reverse proxy (or, for stats/reset, the forward proxy).
class proxy_control {
 public:
  explicit proxy_control(std::string control_url) : base_(std::move(control_url)) {}

  /// From an environment variable; throws with the way to start the servers.
  static proxy_control from_env(char const* var = "FLOE_TEST_PROXY_CONTROL") {
    char const* v = std::getenv(var);
    if (!v || !*v) throw std::runtime_error(std::string(var) + " is not set: run scripts/test, which starts moto and the test proxy");
    return proxy_control(v);
  }

  std::string const& url() const noexcept { return base_; }

  /// POST /rules; returns the rule id.
  int add_rule(std::string_view rule_json) {
    auto r = call("POST", "/rules", rule_json);
    return static_cast<int>(json_int(r, "id"));
  }
  /// "matched", "fired", "held" or "released" of rule `id`.
  std::int64_t rule_counter(int id, std::string_view counter) {
    return json_int(call("GET", "/rules/" + std::to_string(id)), counter);
  }
  void release(int id) { call("POST", "/rules/" + std::to_string(id) + "/release"); }
  void delete_rule(int id) { call("DELETE", "/rules/" + std::to_string(id)); }
  void delete_rules() { call("DELETE", "/rules"); }
  /// A counter of GET /stats ("connections", "requests", "tunnels", ...).
  std::int64_t stat(std::string_view name) { return json_int(call("GET", "/stats"), name); }
  void reset() { call("POST", "/reset"); }

  /// Any call; throws unless the status is 2xx.
  std::string call(std::string_view method, std::string const& path, std::string_view body = {}) {
    auto r = http_call(base_, method, path, body);
    if (r.status < 200 || r.status >= 300)
      throw std::runtime_error("proxy control " + std::string(method) + " " + path + " -> " +
                               std::to_string(r.status) + ": " + r.body);
    return r.body;
  }

 private:
  std::string base_;
};

}  // namespace floe::test
