// http::client against in-process loopback servers that misbehave in one
// exact way each (tests/support/scripted_server.hpp): SNI, the TLS opt-out
// warning hook, pool idle expiry, the connect timeout, a refused connection and
// a name that does not resolve (what their errors say), reply size limits,
// the 100-continue fallback, no transparent resend of a non-idempotent
// request, and writes into a connection the peer closed ending in an error,
// never in SIGPIPE.
#include "http_support.hpp"
#include "loopback_socket.hpp"
#include "scripted_server.hpp"

#include <floe/http/client.hpp>
#include <floe/http/tls.hpp>
#include <floe/service/driver.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>

#include <doctest/doctest.h>

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

// Its own namespace: it shares a build unit with other test files
// (tests/integration/meson.build).
namespace transport_it {

using namespace floe::test::http_names;
using floe::test::scripted_connection;
using floe::test::scripted_server;
using floe::test::tls_files;
using steady = std::chrono::steady_clock;

namespace {

client_config test_config() { return floe::test::http_test_config(); }
using floe::test::finish;
using floe::test::send;
request make(std::string method, std::string target) { return floe::test::bare_request(std::move(method), std::move(target)); }

// Polls `cond` until true or `limit` passes.
template <class F>
bool eventually(F cond, std::chrono::milliseconds limit = 10s) {
  auto const deadline = steady::now() + limit;
  while (!cond()) {
    if (steady::now() >= deadline) return false;
    std::this_thread::sleep_for(10ms);
  }
  return true;
}

// A well-behaved keep-alive server: each request answered 200 with body
// "ok <method> <target>" (its body read and discarded); counts requests by
// "METHOD target" and connections the client closed.
scripted_server::script echo_script() {
  return [](scripted_connection& c) {
    for (;;) {
      auto head = c.read_head();
      if (head.empty()) {
        c.count("client closed");
        return;
      }
      c.read_exact(scripted_connection::content_length(head));
      auto const line = head.substr(0, head.find(" HTTP/"));
      c.count(line);
      if (!c.reply(200, "ok " + line)) return;
    }
  };
}

// A throw-away CA and a server certificate for 127.0.0.1 and localhost
// (the test proxy's generator, tests/support/proxy/certs.py).
struct test_certs {
  std::string dir, ca, cert, key;
  static test_certs const& get() {
    static test_certs const c = make();
    return c;
  }

 private:
  static test_certs make() {
    char const* root = std::getenv("FLOE_SOURCE_ROOT");
    REQUIRE_MESSAGE(root, "FLOE_SOURCE_ROOT is not set: run this test through meson (scripts/test)");
    char tmpl[] = "/tmp/floe-transport-test-XXXXXX";
    REQUIRE(::mkdtemp(tmpl));
    test_certs c;
    c.dir = tmpl;
    std::string const cmd = std::string("python3 '") + root + "/tests/support/proxy' certs '" + c.dir + "' >/dev/null";
    REQUIRE_MESSAGE(std::system(cmd.c_str()) == 0,
                    "cannot make test certificates (needs python3 and the openssl CLI: apt-get install openssl): " << cmd);
    c.ca = c.dir + "/ca.pem";
    c.cert = c.dir + "/server.pem";
    c.key = c.dir + "/server.key";
    return c;
  }
};

// Captures what this process writes to file descriptor 2 while alive.
class stderr_capture {
 public:
  stderr_capture() {
    char tmpl[] = "/tmp/floe-stderr-XXXXXX";
    fd_ = ::mkstemp(tmpl);
    REQUIRE(fd_ >= 0);
    path_ = tmpl;
    std::fflush(stderr);
    saved_ = ::dup(2);
    REQUIRE(saved_ >= 0);
    REQUIRE(::dup2(fd_, 2) == 2);
  }
  std::string stop() {
    if (saved_ >= 0) {
      std::fflush(stderr);
      ::dup2(saved_, 2);
      ::close(saved_);
      saved_ = -1;
      ::close(fd_);
    }
    std::ifstream in(path_);
    std::stringstream ss;
    ss << in.rdbuf();
    std::filesystem::remove(path_);
    return ss.str();
  }
  ~stderr_capture() { stop(); }
  stderr_capture(stderr_capture const&) = delete;
  stderr_capture& operator=(stderr_capture const&) = delete;

 private:
  int fd_ = -1;
  int saved_ = -1;
  std::string path_;
};

}  // namespace

TEST_CASE("TLS: a host name goes out as SNI (and is verified); an IP literal sends no SNI (RFC 6066)") {
  auto const& certs = test_certs::get();
  scripted_server srv(echo_script(), tls_files{certs.cert, certs.key});
  asio::io_context io;
  auto cfg = test_config();
  cfg.tls.ca_file = certs.ca;
  client c(io.get_executor(), cfg);

  endpoint const by_name{true, "localhost", srv.port()};  // /etc/hosts: 127.0.0.1
  auto req = make("GET", "/named");
  response res;
  auto e = send(io, c, by_name, req, res);
  REQUIRE_MESSAGE(!e.code, e.what());
  CHECK(res.status == 200);
  CHECK(res.body == "ok GET /named");

  endpoint const by_ip{true, "127.0.0.1", srv.port()};
  auto req2 = make("GET", "/by-ip");
  e = send(io, c, by_ip, req2, res);
  REQUIRE_MESSAGE(!e.code, e.what());
  CHECK(res.body == "ok GET /by-ip");

  auto const names = srv.server_names();
  REQUIRE(names.size() == 2);
  CHECK(names[0] == "localhost");
  CHECK_MESSAGE(names[1].empty(), names[1]);
  CHECK(c.stats().connections_opened == 2);  // separate pools: (https, localhost) and (https, 127.0.0.1)
}

TEST_CASE("TLS opt-out: verify_peer = false tells on_warning, and only then; the library writes nothing to stderr") {
  std::vector<std::string> warnings;
  auto const collect = [&warnings](std::string_view m) { warnings.emplace_back(m); };
  {
    stderr_capture cap;
    floe::http::tls_config on;
    on.use_env_ca_bundle = false;
    on.on_warning = collect;
    auto ctx = floe::http::make_tls_context(on);
    auto const out = cap.stop();
    REQUIRE(ctx.has_value());
    CHECK_MESSAGE(out.empty(), out);
    CHECK(warnings.empty());
  }
  {
    stderr_capture cap;
    floe::http::tls_config off;
    off.verify_peer = false;
    off.on_warning = collect;
    auto ctx = floe::http::make_tls_context(off);
    auto const out = cap.stop();
    REQUIRE(ctx.has_value());
    CHECK_MESSAGE(out.empty(), out);
    REQUIRE(warnings.size() == 1);
    CHECK_MESSAGE(warnings[0].find("TLS peer verification is DISABLED") != std::string::npos, warnings[0]);
  }
  {
    // No hook: nobody is told, and still nothing on stderr.
    stderr_capture cap;
    floe::http::tls_config off;
    off.verify_peer = false;
    auto ctx = floe::http::make_tls_context(off);
    auto const out = cap.stop();
    REQUIRE(ctx.has_value());
    CHECK_MESSAGE(out.empty(), out);
  }
  // Through a client: an untrusted certificate is accepted; the hook hears
  // of it once for the client's TLS context, not once per connection.
  warnings.clear();
  auto const& certs = test_certs::get();
  scripted_server srv(echo_script(), tls_files{certs.cert, certs.key});
  asio::io_context io;
  auto cfg = test_config();
  cfg.tls.verify_peer = false;
  cfg.tls.use_env_ca_bundle = false;  // no CA knows the test certificate
  cfg.tls.on_warning = collect;
  client c(io.get_executor(), cfg);
  stderr_capture cap;
  // Two hosts, two pools: a connection, and a handshake, for each.
  for (char const* host : {"127.0.0.1", "localhost"}) {
    endpoint const ep{true, host, srv.port()};
    std::string const target = std::string("/unverified-") + host;
    auto req = make("GET", target);
    response res;
    auto e = send(io, c, ep, req, res);
    REQUIRE_MESSAGE(!e.code, e.what());
    CHECK(res.body == "ok GET " + target);
  }
  auto const out = cap.stop();
  CHECK_MESSAGE(out.empty(), out);
  CHECK(c.stats().connections_opened == 2);
  REQUIRE(warnings.size() == 1);
  CHECK_MESSAGE(warnings[0].find("TLS peer verification is DISABLED") != std::string::npos, warnings[0]);
}

TEST_CASE("pool idle expiry: a connection idle longer than pool_idle_timeout is closed, not reused; a shorter idle reuses it") {
  scripted_server srv(echo_script());
  endpoint const ep{false, "127.0.0.1", srv.port()};
  asio::io_context io;
  auto short_cfg = test_config();
  short_cfg.pool_idle_timeout = 300ms;
  auto long_cfg = test_config();
  long_cfg.pool_idle_timeout = 60s;
  client expiring(io.get_executor(), short_cfg);
  client keeping(io.get_executor(), long_cfg);

  for (client* c : {&expiring, &keeping}) {
    auto req = make("GET", "/first");
    response res;
    auto e = send(io, *c, ep, req, res);
    REQUIRE_MESSAGE(!e.code, e.what());
    CHECK(c->idle_connections(ep) == 1);
  }
  REQUIRE(srv.connections() == 2);
  // Both connections now sit idle for the same time: past the short expiry,
  // well inside the long one.
  std::this_thread::sleep_for(900ms);
  for (client* c : {&expiring, &keeping}) {
    auto req = make("GET", "/second");
    response res;
    auto e = send(io, *c, ep, req, res);
    REQUIRE_MESSAGE(!e.code, e.what());
    CHECK(res.body == "ok GET /second");
  }
  CHECK(expiring.stats().connections_opened == 2);
  CHECK(keeping.stats().connections_opened == 1);
  CHECK(srv.connections() == 3);
  // The expired connection was closed by the client, not just left behind.
  CHECK(eventually([&] { return srv.counter("client closed") == 1; }));
  CHECK(expiring.idle_connections(ep) == 1);
  CHECK(keeping.idle_connections(ep) == 1);
}

TEST_CASE("connect timeout: a TCP connect that gets no answer fails with errc::timeout saying so") {
  // A listener that never accepts, its accept queue filled first: further
  // SYNs are dropped, so a connect neither succeeds nor is refused.
  floe::test::loopback_socket listener;
  REQUIRE(::listen(listener.fd(), 0) == 0);
  auto const port = listener.port();
  std::vector<int> fillers;
  bool full = false;
  for (int i = 0; i < 64 && !full; ++i) {
    int const s = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    REQUIRE(s >= 0);
    fillers.push_back(s);
    int const r = ::connect(s, reinterpret_cast<sockaddr const*>(&listener.address()), sizeof(sockaddr_in));
    if (r == 0) continue;
    REQUIRE(errno == EINPROGRESS);
    pollfd p{s, POLLOUT, 0};
    full = ::poll(&p, 1, 500) == 0;  // still pending: the queue is full
  }
  REQUIRE_MESSAGE(full, "could not fill the listener's accept queue");

  asio::io_context io;
  auto cfg = test_config();
  cfg.connect_timeout = 700ms;
  client c(io.get_executor(), cfg);
  endpoint const ep{false, "127.0.0.1", port};
  auto req = make("GET", "/never");
  response res;
  auto const t0 = steady::now();
  auto e = send(io, c, ep, req, res);
  auto const took = steady::now() - t0;
  for (int s : fillers) ::close(s);
  CHECK_MESSAGE(e.code == errc::timeout, e.what());
  CHECK_MESSAGE(e.diag.message == "connecting to 127.0.0.1:" + std::to_string(port) + ": timed out after 700 ms",
                e.what());
  CHECK(took >= 600ms);
  CHECK(took < 15s);
  CHECK(c.stats().connections_opened == 0);
}

TEST_CASE("a closed port: the error says the connection was refused") {
  // Bound and not listening: a connect to it is refused, and the port stays
  // this test's while it runs.
  floe::test::loopback_socket closed;
  auto const port = std::to_string(closed.port());

  asio::io_context io;
  client c(io.get_executor(), test_config());
  endpoint const ep{false, "127.0.0.1", closed.port()};
  auto req = make("GET", "/bucket?list-type=2");
  req.operation = "ListObjectsV2";
  response res;
  auto e = send(io, c, ep, req, res);
  CHECK_MESSAGE(e.code == asio::error::connection_refused, e.what());
  CHECK(e.diag.message == "connecting to 127.0.0.1:" + port + ": connection refused");
  CHECK(c.stats().connections_opened == 0);
  CHECK(c.stats().attempts == 0);
}

TEST_CASE("a name that does not resolve: the error says so") {
  // A 64-byte label is longer than DNS allows: the resolver refuses the name
  // before it builds a query, so nothing leaves the host (a plain
  // "no-such-host.invalid" would be sent to the configured name server).
  std::string const host = std::string(64, 'n') + ".invalid";
  asio::io_context io;
  client c(io.get_executor(), test_config());
  endpoint const ep{false, host, 80};
  auto req = make("GET", "/");
  response res;
  auto e = send(io, c, ep, req, res);
  CHECK_MESSAGE(e.code == asio::error::host_not_found, e.what());
  CHECK(e.diag.message == "resolving " + host + ":80: name does not resolve");
}

TEST_CASE("connect timeout covers the TLS handshake: a server that never answers the ClientHello") {
  scripted_server srv([](scripted_connection& c) { c.wait_closed(30s); });  // plain TCP: reads, never writes
  asio::io_context io;
  auto cfg = test_config();
  cfg.connect_timeout = 700ms;
  cfg.idle_timeout = 60s;
  cfg.tls.use_env_ca_bundle = false;
  client c(io.get_executor(), cfg);
  endpoint const ep{true, "127.0.0.1", srv.port()};
  auto req = make("GET", "/never");
  response res;
  auto const t0 = steady::now();
  auto e = send(io, c, ep, req, res);
  auto const took = steady::now() - t0;
  CHECK_MESSAGE(e.code == errc::timeout, e.what());
  CHECK_MESSAGE(
      e.diag.message == "TLS handshake with 127.0.0.1:" + std::to_string(srv.port()) + ": timed out after 700 ms",
      e.what());
  CHECK(took >= 600ms);
  CHECK(took < 15s);
}

TEST_CASE("header_limit: a reply head over the limit is reply_too_large, read no further and not retried") {
  scripted_server big([](scripted_connection& c) {
    while (!c.read_head().empty()) {
      c.count("requests");
      std::string const filler(20000, 'h');
      if (!c.write("HTTP/1.1 200 OK\r\nX-Filler: " + filler + "\r\nContent-Length: 2\r\n\r\nok")) return;
    }
  });
  asio::io_context io;
  {
    auto cfg = test_config();
    cfg.header_limit = 8 * 1024;
    client c(io.get_executor(), cfg);
    endpoint const ep{false, "127.0.0.1", big.port()};
    auto req = make("GET", "/big-head");
    response res;
    auto e = send(io, c, ep, req, res);
    CHECK_MESSAGE(e.code == errc::reply_too_large, e.what());
    CHECK_MESSAGE(e.diag.message.find("header_limit (8192 bytes)") != std::string::npos, e.what());
    CHECK(big.counter("requests") == 1);
    CHECK(c.idle_connections(ep) == 0);
    // The request driver does not try again either: the same reply would be
    // over the same limit.
    floe::service::description desc;
    desc.id = "test";
    desc.proto = floe::service::protocol::rest_xml;
    floe::service::driver_config dc;
    dc.retry = cfg.retry;
    floe::service::driver d(c, desc, nullptr, dc);
    floe::service::request_spec spec;
    spec.operation = "Test";
    spec.ep = &ep;
    spec.signs = false;
    auto again = make("GET", "/big-head");
    auto f = d.async_run(spec, again, res, asio::use_future);
    e = finish(io, f);
    CHECK_MESSAGE(e.code == errc::reply_too_large, e.what());
    CHECK(e.diag.attempt == 1);
    CHECK(big.counter("requests") == 2);
    // Within the limit the same reply is fine.
    cfg.header_limit = 64 * 1024;
    client roomy(io.get_executor(), cfg);
    auto ok = make("GET", "/big-head");
    e = send(io, roomy, ep, ok, res);
    REQUIRE_MESSAGE(!e.code, e.what());
    CHECK(res.body == "ok");
  }
  // A head that never ends: the client stops at the limit (no unbounded read).
  scripted_server endless([](scripted_connection& c) {
    if (c.read_head().empty()) return;
    if (!c.write("HTTP/1.1 200 OK\r\n")) return;
    std::string const line = "X-More: " + std::string(1000, 'm') + "\r\n";
    while (c.write(line)) {
    }
  });
  auto cfg = test_config();
  client c(io.get_executor(), cfg);
  endpoint const ep{false, "127.0.0.1", endless.port()};
  auto req = make("GET", "/endless-head");
  response res;
  auto e = send(io, c, ep, req, res);
  CHECK_MESSAGE(e.code == errc::reply_too_large, e.what());
  CHECK(endless.connections() == 1);
}

TEST_CASE("body limits: chunked and close-delimited bodies over body_limit, error bodies over error_body_limit") {
  // Path picks the reply: /chunked (5 chunks of 1000), /endless (no length,
  // bytes until the client goes), /error-length (500, Content-Length 5000),
  // /error-chunked (404, chunked 5 x 1000), /small-error (404, 10 bytes).
  scripted_server srv([](scripted_connection& c) {
    for (;;) {
      auto head = c.read_head();
      if (head.empty()) return;
      auto const target = head.substr(4, head.find(" HTTP/") - 4);
      c.count(target);
      std::string const k(1000, 'k');
      auto chunked = [&](unsigned status) {
        std::string r = "HTTP/1.1 " + std::to_string(status) + " X\r\nTransfer-Encoding: chunked\r\n\r\n";
        for (int i = 0; i < 5; ++i) r += "3e8\r\n" + k + "\r\n";
        r += "0\r\n\r\n";
        return c.write(r);
      };
      bool ok = true;
      if (target == "/chunked") {
        ok = chunked(200);
      } else if (target == "/error-chunked") {
        ok = chunked(404);
      } else if (target == "/error-length") {
        ok = c.reply(500, std::string(5000, 'e'));
      } else if (target == "/small-error") {
        ok = c.reply(404, "small body");
      } else if (target == "/endless") {
        if (!c.write("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n")) return;
        while (c.write(k)) {
        }
        return;
      }
      if (!ok) return;
    }
  });
  asio::io_context io;
  auto cfg = test_config();
  cfg.body_limit = 2000;
  cfg.error_body_limit = 1500;
  client c(io.get_executor(), cfg);
  endpoint const ep{false, "127.0.0.1", srv.port()};
  auto expect_too_large = [&](char const* target, char const* limit_name) {
    std::string const what = target;
    CAPTURE(what);
    auto req = make("GET", target);
    response res;
    auto e = send(io, c, ep, req, res);
    CHECK_MESSAGE(e.code == errc::reply_too_large, e.what());
    CHECK_MESSAGE(e.diag.message.find(limit_name) != std::string::npos, e.what());
    CHECK(res.body.size() <= 2000);
    CHECK(srv.counter(target) == 1);  // never retried
  };
  expect_too_large("/chunked", "body_limit (2000 bytes)");
  expect_too_large("/endless", "body_limit (2000 bytes)");
  expect_too_large("/error-length", "error_body_limit (1500 bytes)");
  expect_too_large("/error-chunked", "error_body_limit (1500 bytes)");
  auto req = make("GET", "/small-error");
  response res;
  auto e = send(io, c, ep, req, res);
  REQUIRE_MESSAGE(!e.code, e.what());
  CHECK(res.status == 404);
  CHECK(res.body == "small body");
}

namespace {

// Never sends 100 Continue: reads the head, then waits for the body the
// client must send anyway, and answers with what it got.
scripted_server::script silent_continue_script() {
  return [](scripted_connection& c) {
    for (;;) {
      auto head = c.read_head();
      if (head.empty()) return;
      if (scripted_connection::header(head, "Expect") == "100-continue") c.count("expect");
      auto const body = c.read_exact(scripted_connection::content_length(head));
      if (!c.reply(200, "got " + std::to_string(body.size()) + ": " + body.substr(0, 8))) return;
    }
  };
}

void check_continue_fallback(scripted_server& srv, bool tls, std::string const& ca) {
  asio::io_context io;
  auto cfg = test_config();
  cfg.continue_timeout = 400ms;
  cfg.idle_timeout = 60s;  // only the continue timeout may end the wait
  if (tls) cfg.tls.ca_file = ca;
  client c(io.get_executor(), cfg);
  endpoint const ep{tls, "127.0.0.1", srv.port()};
  std::size_t consumed = 0;
  auto req = make("PUT", "/no-continue");
  req.body = body_source::stream(
      [&consumed](std::span<char> dst, boost::system::error_code&) {
        auto const n = std::min<std::size_t>(dst.size(), 3000 - consumed);
        std::fill_n(dst.data(), n, 'b');
        consumed += n;
        return n;
      },
      3000);
  response res;
  auto const t0 = steady::now();
  auto e = send(io, c, ep, req, res);
  auto const took = steady::now() - t0;
  REQUIRE_MESSAGE(!e.code, e.what());
  CHECK(res.status == 200);
  CHECK(res.body == "got 3000: bbbbbbbb");
  CHECK(consumed == 3000);
  CHECK(srv.counter("expect") == 1);
  CHECK(c.stats().attempts == 1);
  CHECK(took >= 300ms);
  CHECK(took < 20s);  // the 60 s idle timeout did not have to fire
  // The connection stays usable after the fallback.
  auto again = make("GET", "/after");
  e = send(io, c, ep, again, res);
  REQUIRE_MESSAGE(!e.code, e.what());
  CHECK(c.stats().connections_opened == 1);
}

}  // namespace

TEST_CASE("Expect: 100-continue with no answer: the body goes after continue_timeout and the request succeeds") {
  SUBCASE("plain") {
      scripted_server srv(silent_continue_script());
    check_continue_fallback(srv, false, {});
  }
  SUBCASE("TLS") {
    auto const& certs = test_certs::get();
      scripted_server srv(silent_continue_script(), tls_files{certs.cert, certs.key});
    check_continue_fallback(srv, true, certs.ca);
  }
}

TEST_CASE("a memory body larger than the socket takes at once: what send_now could not hand over follows, every byte in order") {
  // The head and a 16 MiB first chunk go to the socket in one non-blocking
  // send, which takes only what the fresh connection's buffers hold; the rest
  // goes by an asynchronous write starting at the right byte. The server
  // checks the body byte for byte.
  std::string body(16u << 20, '\0');
  for (std::size_t i = 0; i < body.size(); ++i) body[i] = static_cast<char>((i * 131 + i / 4096) & 0xff);
  scripted_server srv([&body](scripted_connection& c) {
    auto head = c.read_head();
    if (head.empty()) return;
    auto const got = c.read_exact(scripted_connection::content_length(head));
    c.count(got == body ? "body intact" : "body differs");
    c.reply(200, "ok");
  });
  asio::io_context io;
  auto cfg = test_config();
  cfg.io_chunk = body.size();  // the whole body in the first write, with the head
  client c(io.get_executor(), cfg);
  endpoint const ep{false, "127.0.0.1", srv.port()};
  auto req = make("PUT", "/big");
  req.body = body_source::memory(body);
  response res;
  auto e = send(io, c, ep, req, res);
  REQUIRE_MESSAGE(!e.code, e.what());
  CHECK(res.status == 200);
  CHECK(srv.counter("body intact") == 1);
  CHECK(srv.counter("body differs") == 0);
}

namespace {

// Answers the first request on a connection; reads the second whole, counts
// it, and closes without a reply (a keep-alive close racing a request).
// Later connections answer everything.
scripted_server::script close_on_second_script() {
  return [](scripted_connection& c) {
    for (unsigned n = 1;; ++n) {
      auto head = c.read_head();
      if (head.empty()) return;
      c.read_exact(scripted_connection::content_length(head));
      auto const line = head.substr(0, head.find(" HTTP/"));
      c.count(line);
      if (c.index() == 1 && n == 2) return;  // closed by the server, no reply
      if (!c.reply(200, "ok " + line)) return;
    }
  };
}

}  // namespace

TEST_CASE("a request meeting a connection the server closed: a non-idempotent POST is not resent; a GET is") {
  // Each subcase runs this set-up afresh: a new server and a client whose one
  // pooled connection the server will close after reading the next request.
  asio::io_context io;
  scripted_server srv(close_on_second_script());
  client c(io.get_executor(), test_config());
  endpoint const ep{false, "127.0.0.1", srv.port()};
  auto first = make("GET", "/warm");
  response res;
  auto e = send(io, c, ep, first, res);
  REQUIRE_MESSAGE(!e.code, e.what());
  SUBCASE("POST, not idempotent: an error, received once") {
    auto post = make("POST", "/queue");
    post.traits.idempotent = false;
    post.body = body_source::memory("message");
    e = send(io, c, ep, post, res);
    REQUIRE(e.code);
    MESSAGE(e.what());
    CHECK(e.code != errc::timeout);
    CHECK_MESSAGE(e.diag.message.find("not resent: the request is not idempotent") != std::string::npos, e.what());
    CHECK(srv.counter("POST /queue") == 1);
    CHECK(srv.connections() == 1);
    CHECK(c.stats().stale_resends == 0);
    CHECK(c.stats().attempts == 2);
  }
  SUBCASE("GET, idempotent: resent on a new connection, answered") {
    auto get = make("GET", "/item");
    e = send(io, c, ep, get, res);
    REQUIRE_MESSAGE(!e.code, e.what());
    CHECK(res.body == "ok GET /item");
    CHECK(srv.counter("GET /item") == 2);
    CHECK(srv.connections() == 2);
    CHECK(c.stats().stale_resends == 1);
  }
}

namespace {

// Connection 1 answers one request, then shuts the connection down (a FIN;
// data arriving after it is answered with a reset). Later connections read
// each request whole and answer it with the size of its body.
scripted_server::script answer_once_then_shut() {
  return [](scripted_connection& c) {
    for (;;) {
      auto head = c.read_head();
      if (head.empty()) return;
      auto const body = c.read_exact(scripted_connection::content_length(head));
      if (!c.reply(200, "got " + std::to_string(body.size()))) return;
      if (c.index() == 1) {
        c.close();
        c.count("closed");
        return;
      }
    }
  };
}

// SIGPIPE has its default disposition and is not blocked in this thread:
// a write raising it would end this program (and fail the test).
void require_sigpipe_fatal() {
  struct sigaction sa {};
  REQUIRE(::sigaction(SIGPIPE, nullptr, &sa) == 0);
  bool const default_disposition = sa.sa_handler == SIG_DFL;
  REQUIRE(default_disposition);
  sigset_t mask;
  REQUIRE(::pthread_sigmask(SIG_BLOCK, nullptr, &mask) == 0);
  REQUIRE_FALSE(sigismember(&mask, SIGPIPE));
}

void check_write_to_closed_peer(scripted_server& srv, bool tls, std::string const& ca) {
  require_sigpipe_fatal();
  std::vector<boost::system::error_code> put_errors;
  asio::io_context io;
  auto cfg = test_config();
  cfg.io_chunk = 4096;  // the body in many writes: the reset comes back between them
  if (tls) cfg.tls.ca_file = ca;
  cfg.observer = [&put_errors](floe::http::exchange_view const& v) {
    if (v.method == "PUT") put_errors.push_back(v.ec);
  };
  client c(io.get_executor(), cfg);
  endpoint const ep{tls, "127.0.0.1", srv.port()};
  auto warm = make("GET", "/warm");
  response res;
  auto e = send(io, c, ep, warm, res);
  REQUIRE_MESSAGE(!e.code, e.what());
  REQUIRE(eventually([&srv] { return srv.counter("closed") == 1; }));
  // The pooled connection is the one the server shut: the PUT is written
  // into it, the server resets it, and the next write meets EPIPE.
  std::string const body(1u << 20, 'w');
  auto put = make("PUT", "/big");
  put.body = body_source::memory(body);
  e = send(io, c, ep, put, res);
  REQUIRE_MESSAGE(!e.code, e.what());
  CHECK(res.status == 200);
  CHECK(res.body == "got 1048576");
  CHECK(c.stats().stale_resends == 1);
  REQUIRE(put_errors.size() == 2);
  // EPIPE: what raises SIGPIPE unless the write says MSG_NOSIGNAL.
  CHECK_MESSAGE(put_errors[0] == asio::error::broken_pipe, put_errors[0].message());
  CHECK_FALSE(put_errors[1]);
}

}  // namespace

TEST_CASE("a request written into a connection the peer closed fails with an error, never SIGPIPE; then resent") {
  SUBCASE("plain") {
    scripted_server srv(answer_once_then_shut());
    check_write_to_closed_peer(srv, false, {});
  }
  SUBCASE("TLS") {
    auto const& certs = test_certs::get();
    scripted_server srv(answer_once_then_shut(), tls_files{certs.cert, certs.key});
    check_write_to_closed_peer(srv, true, certs.ca);
  }
}

TEST_CASE("the scripted TLS server writing to a client that went away gets an error, never SIGPIPE") {
  // OpenSSL's socket BIO writes with write(): without the server's own
  // SIGPIPE block this would end the program.
  require_sigpipe_fatal();
  auto const& certs = test_certs::get();
  scripted_server srv(
      [](scripted_connection& c) {
        if (c.read_head().empty()) return;
        if (!c.write("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n")) return;
        std::string const k(1000, 'k');
        while (c.write(k)) {
        }
        c.count("write failed");
        c.close();  // a close_notify written into the reset connection
        c.count("closed");
      },
      tls_files{certs.cert, certs.key});
  asio::io_context io;
  auto cfg = test_config();
  cfg.tls.ca_file = certs.ca;
  cfg.body_limit = 2000;
  client c(io.get_executor(), cfg);
  endpoint const ep{true, "127.0.0.1", srv.port()};
  auto req = make("GET", "/endless");
  response res;
  auto e = send(io, c, ep, req, res);
  CHECK_MESSAGE(e.code == errc::reply_too_large, e.what());
  // The client closed the connection with the reply unread: a reset.
  REQUIRE(eventually([&srv] { return srv.counter("closed") == 1; }));
  CHECK(srv.counter("write failed") == 1);
}

}  // namespace transport_it
