// The deadline per operation (service/driver.hpp) over real sockets, through
// the test proxy in front of moto: a held reply is cut at the deadline with
// errc::timeout; retries inside the budget go on; a back-off that would end
// past it is not waited; a caller's cancellation stays operation_aborted.
#include "http_support.hpp"
#include "servers.hpp"
#include "service_support.hpp"

#include <floe/service/driver.hpp>
#include <floe/sigv4/canonical.hpp>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_future.hpp>

#include <doctest/doctest.h>

#include <chrono>
#include <string>

// Its own namespace: it shares a build unit with other test files
// (tests/integration/meson.build).
namespace deadline_it {

using namespace floe::test::http_names;
using floe::test::servers;
using floe::test::s3_like;
using namespace std::chrono_literals;

namespace {

endpoint proxy() { return floe::test::proxy_endpoint(); }

struct rig {
  asio::io_context io;
  client c;
  floe::service::driver d;
  explicit rig(floe::http::client_config cfg)
      : c(io.get_executor(), cfg), d(c, s3_like(), nullptr, floe::service::driver_config{cfg.retry, {}, {}}) {}

  // One unsigned request; `spec_deadline`: the call's own budget.
  floe::error run(std::string method, std::string const& target, response& res, std::string const& body = {},
                  std::chrono::milliseconds spec_deadline = 0ms, asio::cancellation_signal* cancel = nullptr) {
    auto const ep = proxy();
    auto req = floe::test::bare_request(std::move(method), target);
    req.headers.set("Host", ep.host_header());
    req.headers.set("Authorization", floe::test::dummy_auth);  // moto wants one; unsigned, it is not checked
    if (!body.empty()) req.body = body_source::memory(body);
    floe::service::request_spec spec;
    spec.operation = "Test";
    spec.resource = target;
    spec.ep = &ep;
    spec.path = target;
    spec.payload_hash = floe::sigv4::unsigned_payload;
    spec.signs = false;
    if (spec_deadline.count() > 0) {
      spec.deadline = std::chrono::steady_clock::now() + spec_deadline;
      spec.budget = spec_deadline;
    }
    if (cancel) {
      auto f = d.async_run(spec, req, res, asio::bind_cancellation_slot(cancel->slot(), asio::use_future));
      // Once the request is under way (this runs after its first suspension).
      asio::post(io, [cancel] { cancel->emit(asio::cancellation_type::terminal); });
      return floe::test::finish(io, f);
    }
    auto f = d.async_run(spec, req, res, asio::use_future);
    return floe::test::finish(io, f);
  }
};

void make_object(std::string const& bucket, std::string const& key) {
  rig r(floe::test::http_test_config());
  response res;
  auto e = r.run("PUT", "/" + bucket, res);
  REQUIRE_MESSAGE(!e.code, e.what());
  e = r.run("PUT", "/" + bucket + "/" + key, res, "deadline bytes");
  REQUIRE_MESSAGE(!e.code, e.what());
}

std::string const slow_down =
    R"("action":{"type":"reply","when":"before","status":503,"headers":{"Content-Type":"application/xml"},"body":"<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>"})";

}  // namespace

TEST_CASE("deadline: a held reply is cut when the client's deadline runs out: errc::timeout naming the budget") {
  auto& srv = servers::get();
  srv.control.reset();
  make_object("dl-held-bucket", "k");
  int const hold = srv.control.add_rule(
      R"({"match":{"method":"GET","path":"^/dl-held-bucket/k$"},"trigger":{"every":true},"action":{"type":"hold"}})");
  auto cfg = floe::test::http_test_config();
  cfg.retry.deadline = 400ms;
  rig r(cfg);
  response res;
  auto const t0 = std::chrono::steady_clock::now();
  auto e = r.run("GET", "/dl-held-bucket/k", res);
  auto const took = std::chrono::steady_clock::now() - t0;
  srv.control.delete_rule(hold);
  CHECK_MESSAGE(e.code == errc::timeout, e.what());
  CHECK(e.diag.message == "deadline of 400 ms ran out during the first attempt");
  CHECK(e.diag.operation == "Test");
  CHECK(e.diag.attempt == 1);
  CHECK(took >= 400ms);
  CHECK(took < 5s);  // the idle timeout (5 s) did not end it
  // The cut attempt's connection was closed, not pooled: the next request
  // (no hold now) is answered.
  response ok;
  auto e2 = r.run("GET", "/dl-held-bucket/k", ok);
  REQUIRE_MESSAGE(!e2.code, e2.what());
  CHECK(ok.body == "deadline bytes");
}

TEST_CASE("deadline: retries inside the budget go on; the call's own deadline replaces the client's") {
  auto& srv = servers::get();
  srv.control.reset();
  make_object("dl-retry-bucket", "k");
  int const rule =
      srv.control.add_rule(R"({"match":{"method":"GET","path":"^/dl-retry-bucket/k$"},"trigger":{"nth":[1,2]},)" +
                           slow_down + "}");
  auto cfg = floe::test::http_test_config();
  cfg.retry.deadline = 1ms;  // the call's own (below) replaces it
  rig r(cfg);
  response res;
  auto e = r.run("GET", "/dl-retry-bucket/k", res, {}, 10s);
  REQUIRE_MESSAGE(!e.code, e.what());
  CHECK(res.attempts == 3);
  CHECK(res.body == "deadline bytes");
  CHECK(srv.control.rule_counter(rule, "fired") == 2);
}

TEST_CASE("deadline: a back-off that would end past it is not waited; the error names the last reply") {
  auto& srv = servers::get();
  srv.control.reset();
  make_object("dl-backoff-bucket", "k");
  int const rule = srv.control.add_rule(
      R"({"match":{"method":"GET","path":"^/dl-backoff-bucket/k$"},"trigger":{"every":true},)" + slow_down + "}");
  auto cfg = floe::test::http_test_config();
  cfg.retry.base_delay = 30s;  // any draw but 0 waits long past the deadline
  cfg.random = [] { return 0.5; };
  cfg.retry.deadline = 3s;
  rig r(cfg);
  response res;
  auto const t0 = std::chrono::steady_clock::now();
  auto e = r.run("GET", "/dl-backoff-bucket/k", res);
  auto const took = std::chrono::steady_clock::now() - t0;
  CHECK_MESSAGE(e.code == errc::timeout, e.what());
  CHECK(e.diag.message ==
        "deadline of 3 s ran out during the first attempt (the last one: HTTP 503 Please reduce your request rate.)");
  CHECK(srv.control.rule_counter(rule, "fired") == 1);
  CHECK(res.retry_stop == errc::timeout);
  CHECK(took < 3s);  // failed at once, not at the deadline
}

TEST_CASE("deadline: a caller's cancellation is still operation_aborted, not a timeout") {
  auto& srv = servers::get();
  srv.control.reset();
  make_object("dl-cancel-bucket", "k");
  int const hold = srv.control.add_rule(
      R"({"match":{"method":"GET","path":"^/dl-cancel-bucket/k$"},"trigger":{"every":true},"action":{"type":"hold"}})");
  auto cfg = floe::test::http_test_config();
  cfg.retry.deadline = 20s;
  rig r(cfg);
  response res;
  asio::cancellation_signal cancel;
  auto e = r.run("GET", "/dl-cancel-bucket/k", res, {}, 0ms, &cancel);
  srv.control.delete_rule(hold);
  CHECK_MESSAGE(e.code == asio::error::operation_aborted, e.what());
}

}  // namespace deadline_it
