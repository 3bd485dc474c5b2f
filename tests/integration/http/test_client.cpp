// http::client against moto through a private instance of the test proxy.
#include "http_support.hpp"
#include "servers.hpp"

#include <floe/http/client.hpp>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <ctime>
#include <fstream>
#include <future>
#include <sstream>
#include <vector>

// Its own namespace: it shares a build unit with other test files
// (tests/integration/meson.build).
namespace http_client_it {

using namespace floe::test::http_names;
using floe::test::dummy_auth;
using floe::test::pattern;
using floe::test::servers;

namespace {

endpoint plain_endpoint() { return endpoint{false, "127.0.0.1", servers::get().proxy_port}; }
endpoint tls_endpoint() { return endpoint{true, "127.0.0.1", servers::get().tls_port}; }

client_config test_config() { return floe::test::http_test_config(); }
using floe::test::finish;
using floe::test::send;

// Most cases' start: this program's proxy with its counters and rules
// reset, an io_context for the case's clients, and the proxy's plain
// endpoint.
struct proxied_moto {
  servers& srv = servers::get();
  asio::io_context io;
  endpoint const ep = plain_endpoint();
  proxied_moto() { srv.control.reset(); }
};

request make(std::string method, std::string target) {
  request r = floe::test::bare_request(std::move(method), std::move(target));
  r.headers.set("Authorization", dummy_auth);
  return r;
}

// PUT /bucket and PUT /bucket/key (moto runs with auth off: unsigned is fine).
void put_object(asio::io_context& io, client& c, endpoint const& ep, std::string const& bucket,
                std::string const& key, std::string const& data) {
  response res;
  auto rb = make("PUT", "/" + bucket);
  auto e = send(io, c, ep, rb, res);
  REQUIRE_MESSAGE(!e.code, e.what());
  REQUIRE(res.status == 200);
  auto rk = make("PUT", "/" + bucket + "/" + key);
  rk.body = body_source::memory(data);
  e = send(io, c, ep, rk, res);
  REQUIRE_MESSAGE(!e.code, e.what());
  REQUIRE(res.status == 200);
}

}  // namespace

TEST_CASE_FIXTURE(proxied_moto, "keep-alive: sequential requests reuse one connection (counted by the server)") {
  client c(io.get_executor(), test_config());
  put_object(io, c, ep, "ka-bucket", "k", "hello");
  for (int i = 0; i < 5; ++i) {
    auto req = make("GET", "/ka-bucket/k");
    response res;
    auto e = send(io, c, ep, req, res);
    REQUIRE_MESSAGE(!e.code, e.what());
    CHECK(res.status == 200);
    CHECK(res.body == "hello");
  }
  CHECK(srv.control.stat("connections") == 1);
  CHECK(srv.control.stat("requests") == 7);
  CHECK(c.stats().connections_opened == 1);
  CHECK(c.idle_connections(ep) == 1);
}

TEST_CASE_FIXTURE(proxied_moto, "a connection the server closed between requests is resent transparently") {
  client c(io.get_executor(), test_config());
  put_object(io, c, ep, "closed-bucket", "k", "abc");
  int const rule = srv.control.add_rule(
      R"({"match":{"method":"GET","path":"^/closed-bucket/k$"},"trigger":{"nth":[1]},"action":{"type":"close_after"}})");
  for (int i = 0; i < 2; ++i) {
    auto req = make("GET", "/closed-bucket/k");
    response res;
    auto e = send(io, c, ep, req, res);
    REQUIRE_MESSAGE(!e.code, e.what());
    CHECK(res.status == 200);
    CHECK(res.body == "abc");
  }
  CHECK(srv.control.rule_counter(rule, "fired") == 1);
  CHECK(c.stats().stale_resends == 1);
  CHECK(c.stats().connections_opened == 2);
}

TEST_CASE_FIXTURE(proxied_moto, "a body that keeps moving never hits the progress timeout") {
  auto cfg = test_config();
  cfg.idle_timeout = 1500ms;
  client c(io.get_executor(), cfg);
  // Five replies 400 ms late: two seconds in all, more than the progress
  // timeout, yet never 1.5 s without progress. The proxy answers them
  // itself: behind it, a moto loaded by other tests can take longer than
  // the 1.1 s left over.
  srv.control.add_rule(
      R"({"match":{"method":"GET","path":"^/moving-bucket/k$"},"trigger":{"every":true},"action":{"type":"reply","ms":400,"status":200,"body":"x"}})");
  for (int i = 0; i < 5; ++i) {
    auto req = make("GET", "/moving-bucket/k");
    response res;
    auto e = send(io, c, ep, req, res);
    REQUIRE_MESSAGE(!e.code, e.what());
    CHECK(res.status == 200);
    CHECK(res.body == "x");
  }
}

TEST_CASE_FIXTURE(proxied_moto, "deadlines with several requests in flight: only the stalled one times out; run() returns when all are done") {
  // One watchdog timer keeps every connection's deadline: the stalled request
  // (in the middle of the watched list) must time out while the requests
  // started before and after it complete, and once nothing is in flight no
  // timer may be left pending (io_context::run must return).
  auto cfg = test_config();
  cfg.idle_timeout = 1500ms;
  client c(io.get_executor(), cfg);
  // The proxy answers a and c itself: only b may be slow (behind it, a moto
  // loaded by other tests can take longer than the 1.5 s limit).
  srv.control.add_rule(
      R"({"match":{"method":"GET","path":"^/watch-bucket/b$"},"trigger":{"every":true},"action":{"type":"stall"}})");
  srv.control.add_rule(
      R"({"match":{"method":"GET","path":"^/watch-bucket/[ac]$"},"trigger":{"every":true},"action":{"type":"reply","status":200,"body":"x"}})");
  std::array<request, 3> reqs{make("GET", "/watch-bucket/a"), make("GET", "/watch-bucket/b"),
                              make("GET", "/watch-bucket/c")};
  std::array<response, 3> res;
  std::array<std::future<floe::error>, 3> done;
  for (std::size_t i = 0; i < 3; ++i) done[i] = c.async_send(ep, reqs[i], res[i], asio::use_future);
  auto const t0 = std::chrono::steady_clock::now();
  if (io.stopped()) io.restart();
  io.run_for(30s);
  auto const took = std::chrono::steady_clock::now() - t0;
  CHECK_MESSAGE(io.stopped(), "io_context::run did not return: a timer is still pending");
  for (std::size_t i : {0u, 2u}) {
    REQUIRE(done[i].wait_for(0s) == std::future_status::ready);
    auto e = done[i].get();
    CHECK_MESSAGE(!e.code, e.what());
    CHECK(res[i].status == 200);
  }
  REQUIRE(done[1].wait_for(0s) == std::future_status::ready);
  CHECK(done[1].get().code == errc::timeout);
  CHECK(took >= 1500ms);
  CHECK(took < 25s);

  // A long idle limit: had the client left its deadline timer armed after
  // the request, run() would wait for it (an hour) instead of returning.
  auto long_cfg = test_config();
  long_cfg.idle_timeout = std::chrono::hours(1);
  long_cfg.connect_timeout = std::chrono::hours(1);
  client patient(io.get_executor(), long_cfg);
  auto req = make("GET", "/watch-bucket/a");
  response r;
  auto f = patient.async_send(ep, req, r, asio::use_future);
  io.restart();
  io.run_for(20s);
  CHECK_MESSAGE(io.stopped(), "io_context::run did not return after the request: a timer is still pending");
  REQUIRE(f.wait_for(0s) == std::future_status::ready);
  auto e = f.get();
  CHECK_MESSAGE(!e.code, e.what());
  CHECK(r.status == 200);
}

TEST_CASE_FIXTURE(proxied_moto, "cancelling an in-flight request completes it with operation_aborted") {
  client c(io.get_executor(), test_config());
  put_object(io, c, ep, "cancel-bucket", "k", "x");
  int const rule = srv.control.add_rule(
      R"({"match":{"method":"GET","path":"^/cancel-bucket/k$"},"trigger":{"every":true},"action":{"type":"hold"}})");
  asio::cancellation_signal sig;
  auto req = make("GET", "/cancel-bucket/k");
  response res;
  auto f = c.async_send(ep, req, res, asio::bind_cancellation_slot(sig.slot(), asio::use_future));
  auto const deadline = std::chrono::steady_clock::now() + 10s;
  while (srv.control.rule_counter(rule, "held") == 0) {
    REQUIRE(std::chrono::steady_clock::now() < deadline);
    { if (io.stopped()) io.restart(); io.run_one_for(20ms); }
  }
  CHECK(f.wait_for(0s) != std::future_status::ready);
  sig.emit(asio::cancellation_type::terminal);
  auto e = finish(io, f, 5s);
  CHECK(e.code == asio::error::operation_aborted);
  srv.control.release(rule);
  CHECK(c.idle_connections(ep) == 0);  // the connection in use was closed
}

TEST_CASE("TLS: fails without the CA bundle, succeeds with it (explicit path or AWS_CA_BUNDLE)") {
  auto& srv = servers::get();
  srv.control.reset();
  asio::io_context io;
  auto const ep = tls_endpoint();
  {
    auto cfg = test_config();
    cfg.tls.use_env_ca_bundle = false;
    client c(io.get_executor(), cfg);
    auto req = make("GET", "/");
    response res;
    auto e = send(io, c, ep, req, res);
    CHECK(e.code);
    CHECK_MESSAGE(e.diag.message.find("certificate verif") != std::string::npos, e.what());
  }
  {
    auto cfg = test_config();
    cfg.tls.ca_file = srv.ca_file;
    client c(io.get_executor(), cfg);
    put_object(io, c, ep, "tls-bucket", "k", "secure");
    auto req = make("GET", "/tls-bucket/k");
    response res;
    auto e = send(io, c, ep, req, res);
    REQUIRE_MESSAGE(!e.code, e.what());
    CHECK(res.body == "secure");
    CHECK(c.stats().connections_opened == 1);
  }
  {
    ::setenv("AWS_CA_BUNDLE", srv.ca_file.c_str(), 1);
    client c(io.get_executor(), test_config());
    auto req = make("GET", "/tls-bucket/k");
    response res;
    auto e = send(io, c, ep, req, res);
    ::unsetenv("AWS_CA_BUNDLE");
    REQUIRE_MESSAGE(!e.code, e.what());
    CHECK(res.body == "secure");
  }
  {
    // The host name is verified too: the certificate names 127.0.0.1 and localhost only.
    auto cfg = test_config();
    cfg.tls.ca_file = srv.ca_file;
    client c(io.get_executor(), cfg);
    // "127.1" reaches the same listener (127.0.0.1) under a name the
    // certificate does not carry: the handshake must fail on the name.
    endpoint wrong{true, "127.1", srv.tls_port};
    auto req = make("GET", "/");
    response res;
    auto e = send(io, c, wrong, req, res);
    REQUIRE(e.code);
    MESSAGE(e.what());
    CHECK(e.code != boost::asio::error::connection_refused);
    CHECK_MESSAGE(e.what().find("certificate") != std::string::npos, e.what());
  }
}

TEST_CASE("HTTPS through a CONNECT proxy; plain HTTP through it in absolute form; NO_PROXY bypasses it") {
  auto& srv = servers::get();
  srv.control.reset();
  srv.forward_control.reset();
  asio::io_context io;
  auto cfg = test_config();
  cfg.tls.ca_file = srv.ca_file;
  cfg.proxy.https_proxy = srv.forward;
  cfg.proxy.http_proxy = srv.forward;
  {
    client c(io.get_executor(), cfg);
    put_object(io, c, tls_endpoint(), "connect-bucket", "k", "tunnelled");
    auto req = make("GET", "/connect-bucket/k");
    response res;
    auto e = send(io, c, tls_endpoint(), req, res);
    REQUIRE_MESSAGE(!e.code, e.what());
    CHECK(res.body == "tunnelled");
    CHECK(srv.forward_control.stat("tunnels") == 1);
    auto plain = make("GET", "/connect-bucket/k");
    e = send(io, c, plain_endpoint(), plain, res);
    REQUIRE_MESSAGE(!e.code, e.what());
    CHECK(res.body == "tunnelled");
    CHECK(srv.forward_control.stat("http_requests") == 1);
  }
  cfg.proxy.no_proxy = "localhost,127.0.0.1";
  {
    client c(io.get_executor(), cfg);
    auto req = make("GET", "/connect-bucket/k");
    response res;
    auto e = send(io, c, tls_endpoint(), req, res);
    REQUIRE_MESSAGE(!e.code, e.what());
    CHECK(srv.forward_control.stat("tunnels") == 1);  // unchanged
  }
}

TEST_CASE_FIXTURE(proxied_moto, "a non-replayable body goes with Expect: 100-continue; a 403 arrives before it is read") {
  client c(io.get_executor(), test_config());
  put_object(io, c, ep, "expect-bucket", "seed", "x");
  int const rule = srv.control.add_rule(
      R"({"match":{"method":"PUT","path":"^/expect-bucket/denied$","header":{"Expect":"100-continue"}},"trigger":{"every":true},"action":{"type":"reply","when":"before","status":403,"headers":{"Content-Type":"application/xml"},"body":"<Error><Code>AccessDenied</Code></Error>"}})");
  std::size_t consumed = 0;
  auto reader = [&consumed](std::span<char> dst, boost::system::error_code&) {
    auto const n = std::min<std::size_t>(dst.size(), 1000 - consumed);
    std::fill_n(dst.data(), n, 'z');
    consumed += n;
    return n;
  };
  {
    auto req = make("PUT", "/expect-bucket/denied");
    req.body = body_source::stream(reader, 1000);
    response res;
    auto e = send(io, c, ep, req, res);
    REQUIRE_MESSAGE(!e.code, e.what());
    CHECK(res.status == 403);
    CHECK(res.body.find("AccessDenied") != std::string::npos);
    CHECK(consumed == 0);
    CHECK(srv.control.rule_counter(rule, "fired") == 1);
  }
  {
    // Accepted: the body streams after 100 Continue and lands whole.
    auto req = make("PUT", "/expect-bucket/streamed");
    req.body = body_source::stream(reader, 1000);
    response res;
    auto e = send(io, c, ep, req, res);
    REQUIRE_MESSAGE(!e.code, e.what());
    CHECK(res.status == 200);
    CHECK(consumed == 1000);
    auto get = make("GET", "/expect-bucket/streamed");
    e = send(io, c, ep, get, res);
    REQUIRE_MESSAGE(!e.code, e.what());
    CHECK(res.body == std::string(1000, 'z'));
  }
}

TEST_CASE_FIXTURE(proxied_moto, "error replies land in response::body and a memory body over the limit is refused") {
  auto cfg = test_config();
  cfg.body_limit = 1000;
  client c(io.get_executor(), cfg);
  put_object(io, c, ep, "limit-bucket", "k", pattern(5000));
  auto req = make("GET", "/limit-bucket/k");
  response res;
  auto e = send(io, c, ep, req, res);
  CHECK(e.code == errc::reply_too_large);
  auto missing = make("GET", "/limit-bucket/missing");
  e = send(io, c, ep, missing, res);
  REQUIRE_MESSAGE(!e.code, e.what());
  CHECK(res.status == 404);
  CHECK(res.body.find("NoSuchKey") != std::string::npos);
  auto head = make("HEAD", "/limit-bucket/k");
  e = send(io, c, ep, head, res);
  REQUIRE_MESSAGE(!e.code, e.what());
  CHECK(res.status == 200);
  CHECK(res.headers.get("Content-Length") == "5000");
  CHECK(res.body.empty());
}

TEST_CASE_FIXTURE(proxied_moto, "many requests in flight share the pool up to its cap") {
  auto cfg = test_config();
  cfg.max_connections_per_host = 4;
  client c(io.get_executor(), cfg);
  put_object(io, c, ep, "many-bucket", "k", "m");
  std::vector<request> reqs(16);
  std::vector<response> ress(16);
  std::vector<std::future<floe::error>> futs;
  for (std::size_t i = 0; i < reqs.size(); ++i) {
    reqs[i] = make("GET", "/many-bucket/k");
    futs.push_back(c.async_send(ep, reqs[i], ress[i], asio::use_future));
  }
  for (std::size_t i = 0; i < futs.size(); ++i) {
    auto e = finish(io, futs[i]);
    REQUIRE_MESSAGE(!e.code, e.what());
    CHECK(ress[i].body == "m");
  }
  CHECK(c.stats().connections_opened <= 4);
  CHECK(srv.control.stat("connections") <= 4);
}

namespace {

struct seen_exchange {
  std::string operation, method, target, authorization, host;
  unsigned status = 0;
  unsigned attempt = 0;
  bool resend = false;
  bool reused = false;
  bool has_reply_headers = false;
  std::string content_length;  // of the reply
  bool failed = false;
  std::chrono::steady_clock::duration elapsed{};
};

client_config observed_config(std::vector<seen_exchange>& seen) {
  auto cfg = test_config();
  cfg.observer = [&seen](floe::http::exchange_view const& v) {
    seen_exchange s;
    s.operation = std::string(v.operation);
    s.method = std::string(v.method);
    s.target = std::string(v.target);
    REQUIRE(v.request_headers != nullptr);
    s.authorization = std::string(v.request_headers->get("Authorization"));
    REQUIRE(v.ep != nullptr);
    s.host = v.ep->host;
    s.status = v.status;
    s.attempt = v.attempt;
    s.resend = v.resend;
    s.reused = v.reused_connection;
    s.has_reply_headers = v.reply_headers != nullptr;
    if (v.reply_headers) s.content_length = std::string(v.reply_headers->get("Content-Length"));
    s.failed = static_cast<bool>(v.ec);
    s.elapsed = v.elapsed;
    seen.push_back(std::move(s));
  };
  return cfg;
}

}  // namespace

TEST_CASE_FIXTURE(proxied_moto, "exchange observer: one call per exchange with the request as sent and the reply's status and headers") {
  std::vector<seen_exchange> seen;
  client c(io.get_executor(), observed_config(seen));
  put_object(io, c, ep, "observer-bucket", "k", "observed");
  REQUIRE(seen.size() == 2);
  CHECK(seen[0].method == "PUT");
  CHECK(seen[0].target == "/observer-bucket");
  CHECK(seen[1].target == "/observer-bucket/k");
  CHECK(seen[1].status == 200);
  CHECK(seen[1].has_reply_headers);
  CHECK(seen[1].authorization == dummy_auth);  // as sent: redacting is the observer's job
  CHECK(seen[1].reused);
  CHECK_FALSE(seen[0].reused);
  CHECK(seen[1].host == "127.0.0.1");
  seen.clear();

  // A 503: one call, attempt 1, with the reply (retrying is the driver's:
  // tests/integration/service).
  srv.control.add_rule(
      R"({"match":{"method":"GET","path":"^/observer-bucket/k$"},"trigger":{"nth":[1]},"action":{"type":"reply","when":"before","status":503,"headers":{"Content-Type":"application/xml"},"body":"<Error><Code>SlowDown</Code><Message>slow</Message></Error>"}})");
  auto req = make("GET", "/observer-bucket/k");
  req.operation = "GetObject";
  response res;
  auto e = send(io, c, ep, req, res);
  REQUIRE_MESSAGE(!e.code, e.what());
  CHECK(res.status == 503);
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].operation == "GetObject");
  CHECK(seen[0].attempt == 1);
  CHECK(seen[0].status == 503);
  CHECK(seen[0].content_length == std::to_string(res.body.size()));
  CHECK_FALSE(seen[0].resend);
  CHECK(seen[0].elapsed > std::chrono::steady_clock::duration::zero());
  seen.clear();

  // A connection the server closed: the resend is a call of its own, marked.
  srv.control.add_rule(
      R"({"match":{"method":"GET","path":"^/observer-bucket/k2$"},"trigger":{"nth":[1]},"action":{"type":"close_after"}})");
  put_object(io, c, ep, "observer-bucket", "k2", "x");
  seen.clear();
  for (int i = 0; i < 2; ++i) {
    auto r2 = make("GET", "/observer-bucket/k2");
    response res2;
    e = send(io, c, ep, r2, res2);
    REQUIRE_MESSAGE(!e.code, e.what());
  }
  REQUIRE(seen.size() == 3);
  CHECK(seen[1].failed);
  CHECK(seen[1].status == 0);
  CHECK_FALSE(seen[1].has_reply_headers);
  CHECK(seen[2].resend);
  CHECK(seen[2].status == 200);
  seen.clear();

  // A write whose reply is cut: one call, no reply, the error.
  srv.control.add_rule(
      R"({"match":{"method":"PUT","path":"^/observer-bucket/cut$"},"action":{"type":"cut","when":"after"}})");
  auto w = make("PUT", "/observer-bucket/cut");
  w.headers.set("If-None-Match", "*");
  w.traits.conditional_write = true;
  w.body = body_source::memory("cut");
  response wres;
  e = send(io, c, ep, w, wres);
  CHECK(e.code);
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].failed);
  CHECK(seen[0].status == 0);
}

TEST_CASE_FIXTURE(proxied_moto, "on_body_sent reports a body's bytes as they are written, memory and file bodies alike") {
  auto cfg = test_config();
  cfg.io_chunk = 64 * 1024;
  client c(io.get_executor(), cfg);
  put_object(io, c, ep, "progress-bucket", "seed", "s");
  auto const data = pattern(300000);

  std::vector<std::uint64_t> counts;
  auto req = make("PUT", "/progress-bucket/mem");
  req.body = body_source::memory(data);
  req.on_body_sent = [&counts](std::uint64_t n) { counts.push_back(n); };
  response res;
  auto e = send(io, c, ep, req, res);
  REQUIRE_MESSAGE(!e.code, e.what());
  REQUIRE(res.status == 200);
  REQUIRE(counts.size() == 5);  // 300000 bytes in 64 KiB pieces
  CHECK(std::is_sorted(counts.begin(), counts.end()));
  CHECK(counts.front() == 64 * 1024);
  CHECK(counts.back() == data.size());

  char tmpl[] = "/tmp/floe-progress-XXXXXX";
  int fd = ::mkstemp(tmpl);
  REQUIRE(fd >= 0);
  REQUIRE(::write(fd, data.data(), data.size()) == static_cast<ssize_t>(data.size()));
  ::close(fd);
  counts.clear();
  auto freq = make("PUT", "/progress-bucket/file");
  freq.body = body_source::file(tmpl, 1000, data.size() - 1000);
  freq.on_body_sent = [&counts](std::uint64_t n) { counts.push_back(n); };
  response fres;
  e = send(io, c, ep, freq, fres);
  ::unlink(tmpl);
  REQUIRE_MESSAGE(!e.code, e.what());
  REQUIRE(fres.status == 200);
  REQUIRE(!counts.empty());
  CHECK(std::is_sorted(counts.begin(), counts.end()));
  CHECK(counts.back() == data.size() - 1000);
}

}  // namespace http_client_it
