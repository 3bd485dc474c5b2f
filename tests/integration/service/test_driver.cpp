// service::driver against moto through a private instance of the test
// proxy: every retry rule of the one request path over real sockets. An
// unsigned driver (rest-xml errors) sends what the proxy and moto answer;
// the clock-skew case signs with a fixed set.
#include "http_support.hpp"
#include "loopback_socket.hpp"
#include "servers.hpp"
#include "service_support.hpp"

#include <floe/credentials/provider.hpp>
#include <floe/service/driver.hpp>
#include <floe/sigv4/canonical.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <span>
#include <sstream>
#include <string>
#include <vector>

// Its own namespace: it shares a build unit with other test files
// (tests/integration/meson.build).
namespace service_driver_it {

using namespace floe::test::http_names;
using floe::test::dummy_auth;
using floe::test::pattern;
using floe::test::servers;
using floe::test::s3_like;

namespace {

endpoint plain_endpoint() { return floe::test::proxy_endpoint(); }

floe::service::driver_config driver_config_of(client const& c) {
  floe::service::driver_config dc;
  dc.retry = c.config().retry;
  return dc;
}

// One request through `d`, unsigned unless `signs`.
floe::error drive(asio::io_context& io, floe::service::driver& d, endpoint const& ep, request& req, response& res,
                  bool signs = false) {
  floe::service::request_spec spec;
  spec.operation = "Test";
  spec.resource = req.target;
  spec.ep = &ep;
  spec.path = req.target;
  spec.region = "us-east-1";
  spec.payload_hash = floe::sigv4::unsigned_payload;
  spec.signs = signs;
  auto f = d.async_run(spec, req, res, asio::use_future);
  return floe::test::finish(io, f);
}

request make(std::string method, std::string target) {
  request r = floe::test::bare_request(std::move(method), std::move(target));
  r.headers.set("Host", plain_endpoint().host_header());
  r.headers.set("Authorization", dummy_auth);
  return r;
}

void put_object(asio::io_context& io, floe::service::driver& d, std::string const& bucket, std::string const& key,
                std::string const& data) {
  auto const ep = plain_endpoint();
  response res;
  auto rb = make("PUT", "/" + bucket);
  auto e = drive(io, d, ep, rb, res);
  REQUIRE_MESSAGE(!e.code, e.what());
  auto rk = make("PUT", "/" + bucket + "/" + key);
  rk.body = body_source::memory(data);
  e = drive(io, d, ep, rk, res);
  REQUIRE_MESSAGE(!e.code, e.what());
  REQUIRE(res.status == 200);
}

// A client and its unsigned driver.
struct rig {
  asio::io_context io;
  client c;
  floe::service::driver d;
  explicit rig(floe::http::client_config cfg = floe::test::http_test_config())
      : c(io.get_executor(), std::move(cfg)), d(c, s3_like(), nullptr, driver_config_of(c)) {}

  // One unsigned GET of `target` to `ep`, named `operation` on `resource`.
  floe::error get(endpoint const& ep, std::string const& target, std::string_view operation,
                  std::string_view resource, response& res) {
    auto req = floe::test::bare_request("GET", target);
    req.headers.set("Host", ep.host_header());
    floe::service::request_spec spec;
    spec.operation = operation;
    spec.resource = resource;
    spec.ep = &ep;
    spec.signs = false;
    auto f = d.async_run(spec, req, res, asio::use_future);
    return floe::test::finish(io, f);
  }
};

// The signed cases' keys: AWS's documented example pair (not a secret).
std::shared_ptr<floe::credentials::static_provider> example_keys() {
  floe::credentials::credentials keys;
  keys.access_key_id = "AKIAIOSFODNN7EXAMPLE";
  keys.secret_access_key = floe::credentials::secret_string("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY");
  return std::make_shared<floe::credentials::static_provider>(keys);
}

// Records the X-Amz-Date of each GET as sent in `dates`.
void record_get_dates(floe::http::client_config& cfg, std::vector<std::string>& dates) {
  cfg.observer = [&dates](floe::http::exchange_view const& v) {
    if (v.method == "GET") dates.emplace_back(v.request_headers->get("X-Amz-Date"));
  };
}

}  // namespace

TEST_CASE("503 SlowDown, then success on the retry; the quota refunded; the observer told attempts 1 and 2") {
  auto& srv = servers::get();
  srv.control.reset();
  std::vector<std::pair<unsigned, unsigned>> seen;  // attempt, status of each GET
  auto cfg = floe::test::http_test_config();
  cfg.observer = [&seen](floe::http::exchange_view const& v) {
    if (v.method == "GET") seen.emplace_back(v.attempt, v.status);
  };
  rig r(cfg);
  put_object(r.io, r.d, "drv-slow-bucket", "k", "fine");
  int const rule = srv.control.add_rule(
      R"({"match":{"method":"GET","path":"^/drv-slow-bucket/k$"},"trigger":{"nth":[1]},"action":{"type":"reply","when":"before","status":503,"headers":{"Content-Type":"application/xml"},"body":"<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>"}})");
  auto req = make("GET", "/drv-slow-bucket/k");
  response res;
  auto e = drive(r.io, r.d, plain_endpoint(), req, res);
  REQUIRE_MESSAGE(!e.code, e.what());
  CHECK(res.status == 200);
  CHECK(res.body == "fine");
  CHECK(res.attempts == 2);
  CHECK(res.kind == floe::errors::kind::success);
  CHECK(srv.control.rule_counter(rule, "fired") == 1);
  CHECK(r.c.quota().available() == 500);
  CHECK(seen == std::vector<std::pair<unsigned, unsigned>>{{1, 503}, {2, 200}});
}

TEST_CASE("a connection the server closed between requests is resent by the exchange, outside the attempts and the quota") {
  auto& srv = servers::get();
  srv.control.reset();
  rig r;
  put_object(r.io, r.d, "drv-closed-bucket", "k", "abc");
  int const rule = srv.control.add_rule(
      R"({"match":{"method":"GET","path":"^/drv-closed-bucket/k$"},"trigger":{"nth":[1]},"action":{"type":"close_after"}})");
  for (int i = 0; i < 2; ++i) {
    auto req = make("GET", "/drv-closed-bucket/k");
    response res;
    auto e = drive(r.io, r.d, plain_endpoint(), req, res);
    REQUIRE_MESSAGE(!e.code, e.what());
    CHECK(res.status == 200);
    CHECK(res.body == "abc");
    CHECK(res.attempts == 1);
  }
  CHECK(srv.control.rule_counter(rule, "fired") == 1);
  CHECK(r.c.stats().stale_resends == 1);
  CHECK(r.c.quota().available() == r.c.quota().capacity());
}

TEST_CASE("streaming both ways: a file body up, a reply cut mid-body retried into a file sink whole, signed for every attempt") {
  auto& srv = servers::get();
  srv.control.reset();
  std::vector<std::string> dates;  // X-Amz-Date of each GET as sent
  auto cfg = floe::test::http_test_config();
  cfg.io_chunk = 4096;
  record_get_dates(cfg, dates);
  asio::io_context io;
  client c(io.get_executor(), cfg);
  auto dc = driver_config_of(c);
  // Each signature a second later than the one before: a request signed
  // once and sent twice would carry the same date twice.
  auto ticks = std::make_shared<int>(0);
  auto const t0 = std::chrono::system_clock::now();
  dc.clock = [ticks, t0] { return t0 + std::chrono::seconds((*ticks)++); };
  floe::service::driver d(c, s3_like(), example_keys(), dc);
  auto const data = pattern(300000);
  char tmpl[] = "/tmp/floe-driver-stream-XXXXXX";
  REQUIRE(::mkdtemp(tmpl));
  std::string const dir = tmpl;
  {
    std::ofstream(dir + "/up", std::ios::binary) << "HEADER" << data;
  }
  put_object(io, d, "drv-stream-bucket", "seed", "x");
  auto put = make("PUT", "/drv-stream-bucket/big");
  put.body = body_source::file(dir + "/up", 6, data.size());
  response res;
  auto e = drive(io, d, plain_endpoint(), put, res);
  REQUIRE_MESSAGE(!e.code, e.what());
  CHECK(res.status == 200);

  int const rule = srv.control.add_rule(
      R"({"match":{"method":"GET","path":"^/drv-stream-bucket/big$"},"trigger":{"nth":[1]},"action":{"type":"cut","when":"mid_body","after_bytes":50000}})");
  auto get = floe::test::bare_request("GET", "/drv-stream-bucket/big");
  get.headers.set("Host", plain_endpoint().host_header());
  get.sink = body_sink::file(dir + "/down");
  e = drive(io, d, plain_endpoint(), get, res, true);
  REQUIRE_MESSAGE(!e.code, e.what());
  CHECK(res.status == 200);
  CHECK(res.attempts == 2);
  CHECK(res.body.empty());
  CHECK(res.body_bytes == data.size());
  CHECK(srv.control.rule_counter(rule, "fired") == 1);
  REQUIRE(dates.size() == 2);
  CHECK(dates[0] != dates[1]);
  std::ifstream in(dir + "/down", std::ios::binary);
  std::stringstream got;
  got << in.rdbuf();
  CHECK(got.str() == data);
  std::filesystem::remove_all(dir);
}

TEST_CASE("a reply over a limit is reply_too_large and not retried") {
  auto& srv = servers::get();
  srv.control.reset();
  auto cfg = floe::test::http_test_config();
  cfg.body_limit = 1000;
  rig r(cfg);
  put_object(r.io, r.d, "drv-limit-bucket", "k", pattern(5000));
  auto const before = srv.control.stat("requests");
  auto req = make("GET", "/drv-limit-bucket/k");
  response res;
  auto e = drive(r.io, r.d, plain_endpoint(), req, res);
  CHECK_MESSAGE(e.code == errc::reply_too_large, e.what());
  CHECK_MESSAGE(e.diag.message.find("body_limit (1000 bytes)") != std::string::npos, e.what());
  CHECK(e.diag.attempt == 1);
  CHECK(srv.control.stat("requests") == before + 1);
}

TEST_CASE("a reply cut mid-body is retried and the body arrives whole") {
  auto& srv = servers::get();
  srv.control.reset();
  rig r;
  auto const data = pattern(100000);
  put_object(r.io, r.d, "drv-cut-bucket", "k", data);
  int const rule = srv.control.add_rule(
      R"({"match":{"method":"GET","path":"^/drv-cut-bucket/k$"},"trigger":{"nth":[1]},"action":{"type":"cut","when":"mid_body","after_bytes":1000}})");
  auto req = make("GET", "/drv-cut-bucket/k");
  response res;
  auto e = drive(r.io, r.d, plain_endpoint(), req, res);
  REQUIRE_MESSAGE(!e.code, e.what());
  CHECK(res.status == 200);
  CHECK(res.attempts == 2);
  CHECK(res.body == data);
  CHECK(srv.control.rule_counter(rule, "fired") == 1);
  CHECK(r.c.quota().available() == r.c.quota().capacity());  // 5 taken, refunded on success
}

TEST_CASE("a reply cut mid-body after bytes reached a stream sink is not retried (nothing delivered twice)") {
  auto& srv = servers::get();
  srv.control.reset();
  rig r;
  auto const data = pattern(100000);
  put_object(r.io, r.d, "drv-cut-stream", "k", data);
  int const rule = srv.control.add_rule(
      R"({"match":{"method":"GET","path":"^/drv-cut-stream/k$"},"trigger":{"nth":[1]},"action":{"type":"cut","when":"mid_body","after_bytes":1000}})");
  std::string got;
  auto req = make("GET", "/drv-cut-stream/k");
  req.sink = body_sink::stream([&got](std::string_view piece, boost::system::error_code&) { got.append(piece); });
  response res;
  auto e = drive(r.io, r.d, plain_endpoint(), req, res);
  CHECK(e.code);
  CHECK(srv.control.rule_counter(rule, "fired") == 1);
  CHECK(srv.control.rule_counter(rule, "matched") == 1);  // no second GET was sent
  CHECK(!got.empty());
  CHECK(got.size() < data.size());
  CHECK(data.compare(0, got.size(), got) == 0);  // a prefix, never a repeat
}

TEST_CASE("a stalled reply times out after the idle timeout; a retry then succeeds; one attempt only: timeout") {
  auto& srv = servers::get();
  srv.control.reset();
  {
    rig setup;  // the default idle timeout: moto may be slow, loaded by other tests
    put_object(setup.io, setup.d, "drv-stall-bucket", "k", pattern(5000));
  }
  auto cfg = floe::test::http_test_config();
  cfg.idle_timeout = 1500ms;
  rig r(cfg);
  srv.control.add_rule(
      R"({"match":{"method":"GET","path":"^/drv-stall-bucket/k$"},"trigger":{"first":1},"action":{"type":"stall_body","after_bytes":100}})");
  // The retry is answered by the proxy itself, so that only the stall
  // decides how the attempts end, not how fast moto is.
  int const answer = srv.control.add_rule(
      R"({"match":{"method":"GET","path":"^/drv-stall-bucket/k$"},"action":{"type":"reply","status":200,"body":")" +
      pattern(5000) + R"("}})");
  {
    auto req = make("GET", "/drv-stall-bucket/k");
    response res;
    auto const t0 = std::chrono::steady_clock::now();
    auto e = drive(r.io, r.d, plain_endpoint(), req, res);
    auto const took = std::chrono::steady_clock::now() - t0;
    REQUIRE_MESSAGE(!e.code, e.what());
    CHECK(res.status == 200);
    CHECK(res.attempts == 2);
    CHECK(res.body == pattern(5000));
    CHECK(took >= 1500ms);
    CHECK(took < 15s);
    CHECK(r.c.quota().available() == 500);  // a timeout costs 10, refunded on success
  }
  srv.control.delete_rule(answer);
  srv.control.add_rule(
      R"({"match":{"method":"GET","path":"^/drv-stall-bucket/k$"},"trigger":{"every":true},"action":{"type":"stall"}})");
  cfg.retry.max_attempts = 1;
  rig once(cfg);
  auto req = make("GET", "/drv-stall-bucket/k");
  // A request's own idle timeout replaces the client's (a long poll's).
  req.idle_timeout = 500ms;
  response res;
  auto const t0 = std::chrono::steady_clock::now();
  auto e = drive(once.io, once.d, plain_endpoint(), req, res);
  auto const took = std::chrono::steady_clock::now() - t0;
  CHECK(e.code == errc::timeout);
  CHECK(e.diag.attempt == 1);
  CHECK(took >= 500ms);
  CHECK(took < 1500ms);
}

TEST_CASE("a consumed non-replayable body is never resent") {
  auto& srv = servers::get();
  srv.control.reset();
  rig r;
  put_object(r.io, r.d, "drv-once-bucket", "seed", "x");
  srv.control.add_rule(
      R"({"match":{"method":"PUT","path":"^/drv-once-bucket/k$"},"trigger":{"every":true},"action":{"type":"cut","when":"after"}})");
  int reads = 0;
  auto req = make("PUT", "/drv-once-bucket/k");
  req.body = body_source::stream(
      [&reads](std::span<char> dst, boost::system::error_code&) {
        ++reads;
        auto const n = std::min<std::size_t>(dst.size(), 10);
        std::fill_n(dst.data(), n, 'q');
        return n;
      },
      10);
  response res;
  auto e = drive(r.io, r.d, plain_endpoint(), req, res);
  CHECK(e.code);
  CHECK_MESSAGE(e.diag.message.find("not retried") != std::string::npos, e.what());
  CHECK(reads == 1);
}

TEST_CASE("a conditional write whose reply is lost is unknown_outcome, never retried") {
  auto& srv = servers::get();
  srv.control.reset();
  rig r;
  put_object(r.io, r.d, "drv-cond-bucket", "seed", "x");
  int const rule = srv.control.add_rule(
      R"({"match":{"method":"PUT","path":"^/drv-cond-bucket/k$","headers_present":["If-None-Match"]},"trigger":{"every":true},"action":{"type":"cut","when":"after"}})");
  auto req = make("PUT", "/drv-cond-bucket/k");
  req.headers.set("If-None-Match", "*");
  req.traits.conditional_write = true;
  req.body = body_source::memory("v1");
  response res;
  auto e = drive(r.io, r.d, plain_endpoint(), req, res);
  CHECK_MESSAGE(e.code == errc::unknown_outcome, e.what());
  CHECK(srv.control.rule_counter(rule, "matched") == 1);
}

TEST_CASE("the retry quota runs out: retries stop with retry_quota_exhausted") {
  auto& srv = servers::get();
  srv.control.reset();
  auto cfg = floe::test::http_test_config();
  cfg.retry.quota_capacity = 12;
  rig r(cfg);
  put_object(r.io, r.d, "drv-quota-bucket", "k", "x");
  int const rule = srv.control.add_rule(
      R"({"match":{"method":"GET","path":"^/drv-quota-bucket/k$"},"trigger":{"every":true},"action":{"type":"reply","when":"before","status":503,"body":"<Error><Code>SlowDown</Code></Error>"}})");
  CHECK(r.c.quota().available() == 12);
  {
    auto req = make("GET", "/drv-quota-bucket/k");
    response res;
    auto e = drive(r.io, r.d, plain_endpoint(), req, res);
    CHECK(e.code == errc::throttled);
    CHECK(e.diag.attempt == 3);
    CHECK(res.status == 503);
    CHECK(res.attempts == 3);
    CHECK(res.retry_stop == errc::attempts_exhausted);
    CHECK(r.c.quota().available() == 2);
  }
  {
    auto req = make("GET", "/drv-quota-bucket/k");
    response res;
    auto e = drive(r.io, r.d, plain_endpoint(), req, res);
    CHECK(e.code == errc::throttled);
    CHECK_MESSAGE(e.diag.message.find("not retried") != std::string::npos, e.what());
    CHECK(res.status == 503);
    CHECK(res.attempts == 1);
    CHECK(res.retry_stop == errc::retry_quota_exhausted);
  }
  CHECK(srv.control.rule_counter(rule, "fired") == 4);
}

TEST_CASE("a clock-skew rejection corrects the offset from Date and is retried at once, signed again") {
  auto& srv = servers::get();
  srv.control.reset();
  std::vector<std::string> dates;
  auto cfg = floe::test::http_test_config();
  record_get_dates(cfg, dates);
  asio::io_context io;
  client c(io.get_executor(), cfg);
  floe::service::driver d(c, s3_like(), example_keys(), driver_config_of(c));
  put_object(io, d, "drv-skew-bucket", "k", "on time");
  // The server's clock is an hour ahead of ours.
  auto const ahead = std::chrono::system_clock::now() + 1h;
  auto const t = std::chrono::system_clock::to_time_t(ahead);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char date[64];
  std::strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S GMT", &tm);
  int const rule = srv.control.add_rule(
      std::string(R"({"match":{"method":"GET","path":"^/drv-skew-bucket/k$"},"trigger":{"nth":[1]},"action":{"type":"reply","when":"before","status":403,"headers":{"Date":")") +
      date + R"("},"body":"<Error><Code>RequestTimeTooSkewed</Code></Error>"}})");
  auto req = floe::test::bare_request("GET", "/drv-skew-bucket/k");
  req.headers.set("Host", plain_endpoint().host_header());
  response res;
  auto e = drive(io, d, plain_endpoint(), req, res, true);
  REQUIRE_MESSAGE(!e.code, e.what());
  CHECK(res.status == 200);
  CHECK(res.attempts == 2);
  CHECK(c.clock_skew() > 3590s);
  CHECK(c.clock_skew() < 3610s);
  REQUIRE(dates.size() == 2);
  CHECK(dates[0] != dates[1]);  // signed again, with the server's time
  CHECK(srv.control.rule_counter(rule, "fired") == 1);
}

TEST_CASE("a closed port: the error says the connection was refused, and after how many attempts") {
  // Bound and not listening: a connect to it is refused.
  floe::test::loopback_socket closed;
  auto const port = std::to_string(closed.port());
  rig r;
  endpoint const ep{false, "127.0.0.1", closed.port()};
  response res;
  auto e = r.get(ep, "/bucket?list-type=2", "ListObjectsV2", "bucket", res);
  CHECK_MESSAGE(e.code == asio::error::connection_refused, e.what());
  CHECK(e.diag.message == "connecting to 127.0.0.1:" + port + ": connection refused");
  CHECK(e.diag.attempt == 3);
  CHECK(res.attempts == 3);
  CHECK(e.diag.to_string() == "ListObjectsV2 bucket: connecting to 127.0.0.1:" + port +
                                  ": connection refused (after 3 attempts)");
  CHECK(e.what().find("not retried") == std::string::npos);
}

TEST_CASE("a name that does not resolve: the error says so, and after how many attempts") {
  // A 64-byte label is longer than DNS allows: the resolver refuses the name
  // before it builds a query, so nothing leaves the host.
  std::string const host = std::string(64, 'n') + ".invalid";
  rig r;
  endpoint const ep{false, host, 80};
  response res;
  auto e = r.get(ep, "/", "ListBuckets", {}, res);
  CHECK_MESSAGE(e.code == asio::error::host_not_found, e.what());
  CHECK(e.diag.message == "resolving " + host + ":80: name does not resolve");
  CHECK(e.diag.attempt == 3);
  CHECK(e.diag.to_string() == "ListBuckets: resolving " + host + ":80: name does not resolve (after 3 attempts)");
  CHECK(e.what().find("not retried") == std::string::npos);
}

}  // namespace service_driver_it
