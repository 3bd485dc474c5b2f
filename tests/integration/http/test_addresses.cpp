// Every address of a store: http::client against moto through a private
// test proxy listening on 127.0.0.1-127.0.0.4, the name "localhost" given
// all four by resolve_overrides. The proxy counts the connections each
// address accepts, and can make one refuse or accept and never answer.
#include "http_support.hpp"
#include "servers.hpp"

#include <floe/http/client.hpp>
#include <floe/service/driver.hpp>
#include <floe/sigv4/canonical.hpp>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>

#include <doctest/doctest.h>

#include <array>
#include <future>
#include <map>
#include <memory>
#include <string>
#include <vector>

// Its own namespace: it shares a build unit with other test files
// (tests/integration/meson.build).
namespace http_addresses_it {

using namespace floe::test::http_names;
using floe::test::dummy_auth;
using floe::test::finish;
using floe::test::servers;

namespace {

constexpr std::array<char const*, 4> addrs{"127.0.0.1", "127.0.0.2", "127.0.0.3", "127.0.0.4"};

// The requests list one empty bucket of the tests' own: cheap however many
// buckets the other tests have made on the shared moto (a ListBuckets of
// 1,650 took 340 ms here, near the 400 ms limits of the blackhole cases).
constexpr char listing[] = "/floe-http-addresses";

struct four_addresses {
  servers& srv = servers::get();
  asio::io_context io;
  endpoint const ep{false, "localhost", servers::get().proxy_port};
  four_addresses() {
    make_bucket();
    srv.control.reset();
  }

  // Once per test program; before the proxy's counters are reset.
  void make_bucket() {
    static bool made = false;
    if (made) return;
    client c(io.get_executor(), config());
    auto req = floe::test::bare_request("PUT", listing);
    req.headers.set("Authorization", dummy_auth);
    response res;
    auto const e = floe::test::send(io, c, ep, req, res);
    REQUIRE_MESSAGE(!e.code, e.what());
    REQUIRE_MESSAGE((res.status == 200 || res.status == 409), res.status);  // 409: made by an earlier run
    made = true;
  }

  client_config config() const {
    auto cfg = floe::test::http_test_config();
    cfg.resolve_overrides = {{"localhost", "127.0.0.1,127.0.0.2,127.0.0.3,127.0.0.4"}};
    return cfg;
  }

  // Connections each address accepted since the last reset.
  std::map<std::string, std::int64_t> by_address() {
    auto const stats = srv.control.call("GET", "/stats");
    auto const at = stats.find("\"by_address\"");
    REQUIRE(at != std::string::npos);
    std::string const tail = stats.substr(at + 12);
    std::map<std::string, std::int64_t> out;
    for (auto const* a : addrs) out[a] = floe::test::json_int(tail, a);
    return out;
  }

  void set_mode(char const* address, char const* mode) {
    srv.control.call("POST", "/addresses", std::string("{\"") + address + "\": \"" + mode + "\"}");
  }

  // n GET of the listing (ListObjects of an empty bucket) at once; their errors.
  std::vector<floe::error> at_once(client& c, int n) {
    std::vector<std::unique_ptr<request>> reqs;
    std::vector<std::unique_ptr<response>> ress;
    std::vector<std::future<floe::error>> fs;
    for (int i = 0; i < n; ++i) {
      reqs.push_back(std::make_unique<request>(floe::test::bare_request("GET", listing)));
      reqs.back()->headers.set("Authorization", dummy_auth);
      ress.push_back(std::make_unique<response>());
      fs.push_back(c.async_send(ep, *reqs.back(), *ress.back(), asio::use_future));
    }
    std::vector<floe::error> out;
    for (int i = 0; i < n; ++i) {
      out.push_back(finish(io, fs[i]));
      if (!out.back().code) CHECK(ress[i]->status == 200);
    }
    return out;
  }

  floe::http::address_report report_of(client const& c, char const* address) {
    for (auto const& r : c.addresses("localhost", ep.port))
      if (r.address.to_string() == address) return r;
    FAIL("no report for " << address);
    return {};
  }
};

}  // namespace

TEST_CASE_FIXTURE(four_addresses, "addresses: new connections spread evenly over every address of the name") {
  std::vector<std::string> peers;
  auto cfg = config();
  cfg.observer = [&](floe::http::exchange_view const& v) {
    peers.emplace_back(v.peer);
    CHECK(v.ttfb.count() > 0);  // a reply came: its first byte was timed
    CHECK(v.ttfb <= v.elapsed);
    CHECK_FALSE(v.hedge);
  };
  client c(io.get_executor(), cfg);
  for (auto const& e : at_once(c, 8)) CHECK_MESSAGE(!e.code, e.what());
  CHECK(c.stats().connections_opened == 8);
  for (auto const& an : by_address()) CHECK_MESSAGE(an.second == 2, an.first);
  auto const rep = c.addresses("localhost", ep.port);
  REQUIRE(rep.size() == 4);
  for (auto const& r : rep) {
    CHECK(r.open == 2);
    CHECK_FALSE(r.benched);
  }
  // The observer is told the address each attempt went to.
  REQUIRE(peers.size() == 8);
  std::map<std::string, int> seen;
  for (auto const& p : peers) ++seen[p];
  for (auto const* a : addrs) CHECK(seen[std::string(a) + ":" + std::to_string(ep.port)] == 2);
  // Closed connections are no longer counted as open.
  c.close_idle();
  for (auto const& r : c.addresses("localhost", ep.port)) CHECK(r.open == 0);
}

TEST_CASE_FIXTURE(four_addresses, "addresses: one that refuses is benched, every request succeeds on the others") {
  set_mode("127.0.0.3", "refuse");
  client c(io.get_executor(), config());
  for (auto const& e : at_once(c, 8)) CHECK_MESSAGE(!e.code, e.what());
  auto by = by_address();
  CHECK(by["127.0.0.3"] == 0);
  CHECK(by["127.0.0.1"] + by["127.0.0.2"] + by["127.0.0.4"] == 8);
  // The 8 addresses were picked at once, 2 each: both tries of 127.0.0.3
  // failed (and went on to another address).
  auto r = report_of(c, "127.0.0.3");
  CHECK(r.benched);
  CHECK(r.failures == 2);
  CHECK(r.picked == 2);
  CHECK(r.open == 0);
  // While benched it is not tried again: 4 more connections (12 at once,
  // 8 idle), no new failure on it.
  for (auto const& e : at_once(c, 12)) CHECK_MESSAGE(!e.code, e.what());
  CHECK(report_of(c, "127.0.0.3").failures == 2);
  CHECK(report_of(c, "127.0.0.3").picked == 2);
  CHECK(c.stats().connections_opened == 12);
}

TEST_CASE_FIXTURE(four_addresses, "addresses: one that accepts and never answers fails its attempt by the timeout, is benched, and later requests avoid it") {
  set_mode("127.0.0.2", "blackhole");
  auto cfg = config();
  cfg.idle_timeout = std::chrono::milliseconds(400);
  client c(io.get_executor(), cfg);
  auto errs = at_once(c, 4);  // one connection to each address
  int timed_out = 0;
  for (auto const& e : errs) {
    if (e.code) {
      CHECK(e.code == errc::timeout);
      ++timed_out;
    }
  }
  CHECK(timed_out == 1);
  auto r = report_of(c, "127.0.0.2");
  CHECK(r.benched);
  CHECK(r.failures == 1);
  CHECK(r.open == 0);  // the stalled connection was closed
  // The request driver's retry of the failed attempt, and everything after
  // it while the bench lasts, goes to the other three.
  for (auto const& e : at_once(c, 8)) CHECK_MESSAGE(!e.code, e.what());
  CHECK(by_address()["127.0.0.2"] == 1);
  CHECK(report_of(c, "127.0.0.2").failures == 1);
}

TEST_CASE_FIXTURE(four_addresses, "addresses: through the request driver, a blackholed address costs an attempt, never a request") {
  set_mode("127.0.0.4", "blackhole");
  auto cfg = config();
  cfg.idle_timeout = std::chrono::milliseconds(400);
  std::vector<std::string> timed_out_peers;
  cfg.observer = [&](floe::http::exchange_view const& v) {
    if (v.ec == errc::timeout) timed_out_peers.emplace_back(v.peer);
  };
  client c(io.get_executor(), cfg);
  floe::service::description d;
  d.id = "s3";
  d.signing_name = "s3";
  d.proto = floe::service::protocol::rest_xml;
  d.s3_signing = true;
  floe::service::driver_config dc;
  dc.retry = c.config().retry;
  floe::service::driver drv(c, d, nullptr, dc);
  std::vector<std::unique_ptr<request>> reqs;
  std::vector<std::unique_ptr<response>> ress;
  std::vector<std::future<floe::error>> fs;
  floe::service::request_spec spec;
  spec.operation = "ListObjects";
  spec.resource = listing;
  spec.ep = &ep;
  spec.path = listing;
  spec.region = "us-east-1";
  spec.payload_hash = floe::sigv4::unsigned_payload;
  spec.signs = false;
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < 8; ++i) {
      reqs.push_back(std::make_unique<request>(floe::test::bare_request("GET", listing)));
      reqs.back()->headers.set("Authorization", dummy_auth);
      ress.push_back(std::make_unique<response>());
      fs.push_back(drv.async_run(spec, *reqs.back(), *ress.back(), asio::use_future));
    }
    for (std::size_t i = fs.size() - 8; i < fs.size(); ++i) {
      auto e = finish(io, fs[i]);
      CHECK_MESSAGE(!e.code, e.what());
      CHECK(ress[i]->status == 200);
    }
  }
  // The first round's connections to 127.0.0.4 (2 of 8) stalled; their
  // retries, and the whole second round, went elsewhere.
  CHECK(timed_out_peers.size() == 2);
  for (auto const& p : timed_out_peers) CHECK(p == "127.0.0.4:" + std::to_string(ep.port));
  CHECK(by_address()["127.0.0.4"] == 2);
  CHECK(report_of(c, "127.0.0.4").benched);
}

TEST_CASE_FIXTURE(four_addresses, "warm-up: n connections opened ahead of traffic, spread over the addresses, and the first requests reuse them") {
  std::vector<bool> reused;
  auto cfg = config();
  cfg.observer = [&](floe::http::exchange_view const& v) { reused.push_back(v.reused_connection); };
  client c(io.get_executor(), cfg);
  auto f = c.async_warm_up(ep, 4, asio::use_future);
  auto e = finish(io, f);
  REQUIRE_MESSAGE(!e.code, e.what());
  CHECK(c.idle_connections(ep) == 4);
  CHECK(c.stats().connections_opened == 4);
  for (auto const& an : by_address()) CHECK_MESSAGE(an.second == 1, an.first);
  CHECK(srv.control.stat("requests") == 0);  // connections only
  for (auto const& err : at_once(c, 4)) CHECK_MESSAGE(!err.code, err.what());
  REQUIRE(reused.size() == 4);
  for (bool r : reused) CHECK(r);
  CHECK(c.stats().connections_opened == 4);
  // Warming up to a count already idle opens nothing.
  auto again = c.async_warm_up(ep, 3, asio::use_future);
  CHECK_FALSE(finish(io, again).code);
  CHECK(c.stats().connections_opened == 4);
}

TEST_CASE_FIXTURE(four_addresses, "warm-up over TLS: the handshakes are done before the first request") {
  endpoint const tls{true, "localhost", srv.tls_port};
  auto cfg = config();
  cfg.tls.ca_file = srv.ca_file;
  std::vector<bool> reused;
  cfg.observer = [&](floe::http::exchange_view const& v) { reused.push_back(v.reused_connection); };
  client c(io.get_executor(), cfg);
  auto f = c.async_warm_up(tls, 2, asio::use_future);
  auto e = finish(io, f);
  REQUIRE_MESSAGE(!e.code, e.what());
  CHECK(c.idle_connections(tls) == 2);
  auto req = floe::test::bare_request("GET", listing);
  req.headers.set("Authorization", dummy_auth);
  response res;
  auto s = floe::test::send(io, c, tls, req, res);
  REQUIRE_MESSAGE(!s.code, s.what());
  CHECK(res.status == 200);
  REQUIRE(reused.size() == 1);
  CHECK(reused[0]);
}

TEST_CASE_FIXTURE(four_addresses, "warm-up: a failure to connect is its error, naming where") {
  auto cfg = config();
  cfg.resolve_overrides = {{"localhost", "127.0.0.3"}};
  set_mode("127.0.0.3", "refuse");
  client c(io.get_executor(), cfg);
  auto f = c.async_warm_up(ep, 2, asio::use_future);
  auto e = finish(io, f);
  CHECK(e.code);
  CHECK_MESSAGE(e.diag.message.find("connecting to localhost:" + std::to_string(ep.port) + " (127.0.0.3)") == 0,
                e.diag.message);
  CHECK(c.idle_connections(ep) == 0);
}

TEST_CASE_FIXTURE(four_addresses, "warm-up: a TLS handshake that never ends times out within connect_timeout and benches the address") {
  // TLS spoken to the blackholed plain port: the handshake gets no answer.
  set_mode("127.0.0.2", "blackhole");
  auto cfg = config();
  cfg.resolve_overrides = {{"localhost", "127.0.0.2"}};
  cfg.connect_timeout = std::chrono::milliseconds(500);
  client c(io.get_executor(), cfg);
  endpoint const tls_on_plain{true, "localhost", ep.port};
  auto f = c.async_warm_up(tls_on_plain, 1, asio::use_future);
  auto e = finish(io, f);
  CHECK(e.code == errc::timeout);
  CHECK(e.diag.message == "TLS handshake with localhost:" + std::to_string(ep.port) + " (127.0.0.2): timed out after 500 ms");
  auto r = report_of(c, "127.0.0.2");
  CHECK(r.benched);
  CHECK(r.open == 0);
}

TEST_CASE_FIXTURE(four_addresses, "warm-up: cancelled, it stops the connections still opening and completes with operation_aborted") {
  set_mode("127.0.0.2", "blackhole");
  auto cfg = config();
  cfg.resolve_overrides = {{"localhost", "127.0.0.2"}};
  client c(io.get_executor(), cfg);  // connect_timeout 5 s: the handshakes would hang that long
  endpoint const tls_on_plain{true, "localhost", ep.port};
  asio::cancellation_signal stop;
  auto f = c.async_warm_up(tls_on_plain, 3, asio::bind_cancellation_slot(stop.slot(), asio::use_future));
  // Once the proxy holds all three connections, cancel.
  auto const limit = std::chrono::steady_clock::now() + std::chrono::seconds(4);
  while (by_address()["127.0.0.2"] < 3) {
    REQUIRE(std::chrono::steady_clock::now() < limit);
    io.run_one_for(std::chrono::milliseconds(20));
  }
  auto const t0 = std::chrono::steady_clock::now();
  stop.emit(asio::cancellation_type::terminal);
  auto e = finish(io, f);
  CHECK(e.code == asio::error::operation_aborted);
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(3));  // not the connect timeout
  CHECK(c.idle_connections(tls_on_plain) == 0);
  CHECK(report_of(c, "127.0.0.2").open == 0);
  CHECK_FALSE(report_of(c, "127.0.0.2").benched);  // a cancellation says nothing of the address
}

}  // namespace http_addresses_it
