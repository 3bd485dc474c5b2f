// What the HTTP client's integration programs share: a client_config for
// loopback test servers, running an io_context until a future is ready, one
// exchange, and a bare request.
#pragma once

#include <floe/http/client.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>

#include <doctest/doctest.h>

#include <chrono>
#include <future>
#include <string>

namespace floe::test {

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

}  // namespace floe::test
