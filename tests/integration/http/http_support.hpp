// What the HTTP client's and the service driver's integration programs
// share: the names they use unqualified, a client_config for loopback test
// servers, running an io_context until a future is ready, one exchange, a
// bare request, a dummy Authorization and a body pattern.
#pragma once

#include <floe/http/client.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>

#include <doctest/doctest.h>

#include <chrono>
#include <cstddef>
#include <future>
#include <string>

namespace floe::test {

// Brought in by `using namespace floe::test::http_names;` in each program.
namespace http_names {
namespace asio = boost::asio;
using namespace std::chrono_literals;
using floe::errc;
using floe::http::body_sink;
using floe::http::body_source;
using floe::http::client;
using floe::http::client_config;
using floe::http::endpoint;
using floe::http::request;
using floe::http::response;
}  // namespace http_names

inline http::client_config http_test_config() {
  using namespace std::chrono_literals;
  http::client_config cfg;
  cfg.proxy = {};  // no proxy from the environment unless a test sets one
  cfg.retry.base_delay = 1ms;
  cfg.idle_timeout = 5s;
  cfg.connect_timeout = 5s;
  return cfg;
}

// Runs the io_context until the future is ready (or `limit` passes).
template <class T>
T finish(boost::asio::io_context& io, std::future<T>& f, std::chrono::seconds limit = std::chrono::seconds(30)) {
  using namespace std::chrono_literals;
  auto const deadline = std::chrono::steady_clock::now() + limit;
  while (f.wait_for(0s) != std::future_status::ready) {
    REQUIRE_MESSAGE(std::chrono::steady_clock::now() < deadline, "operation did not complete in time");
    if (io.stopped()) io.restart();
    io.run_one_for(50ms);
  }
  return f.get();
}

inline error send(boost::asio::io_context& io, http::client& c, http::endpoint const& ep, http::request& req,
                  http::response& res) {
  auto f = c.async_send(ep, req, res, boost::asio::use_future);
  return finish(io, f);
}

inline http::request bare_request(std::string method, std::string target) {
  http::request r;
  r.method = std::move(method);
  r.target = std::move(target);
  return r;
}

// moto (auth off) still refuses anonymous object writes; any SigV4-shaped
// Authorization passes (a private proxy's verifier is off). A dummy, not a secret.
constexpr char dummy_auth[] =
    "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20240101/us-east-1/s3/aws4_request, "
    "SignedHeaders=host, Signature=0000";

// n bytes of a repeating lower-case pattern (a body whose every byte is checkable).
inline std::string pattern(std::size_t n) {
  std::string s(n, '\0');
  for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>('a' + (i * 7) % 26);
  return s;
}

}  // namespace floe::test
