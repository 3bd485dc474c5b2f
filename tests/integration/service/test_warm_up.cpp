// Warm-up on the clients services use (issue 32): s3::client and
// sqs::client open connections ahead of traffic through their shared
// http::client, and the first requests reuse them — against moto through
// the test proxy, which counts the connections it accepted.
#include "servers.hpp"

#include <floe/credentials/provider.hpp>
#include <floe/providers/default_session.hpp>
#include <floe/s3/client.hpp>
#include <floe/sqs/client.hpp>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <doctest/doctest.h>

#include <future>
#include <map>
#include <mutex>
#include <thread>
#include <unistd.h>
#include <vector>

// Its own namespace: it shares a build unit with other test files
// (tests/integration/meson.build).
namespace warm_up_it {

namespace asio = boost::asio;
using floe::test::servers;
using namespace std::chrono_literals;

namespace {

// An io_context run on a thread of its own, and what the exchange observer
// saw (reused connection or not, per exchange, in order).
struct world {
  servers& srv = servers::get();
  asio::io_context io;
  asio::executor_work_guard<asio::io_context::executor_type> work = asio::make_work_guard(io);
  std::thread runner;
  std::mutex m;
  std::vector<bool> reused;

  world() { srv.control.reset(); }
  ~world() {
    work.reset();
    if (runner.joinable()) runner.join();
  }
  void run() { runner = std::thread([this] { io.run(); }); }
  floe::http::exchange_observer observer() {
    return [this](floe::http::exchange_view const& v) {
      std::lock_guard<std::mutex> l(m);
      reused.push_back(v.reused_connection);
    };
  }
  std::vector<bool> seen() {
    std::lock_guard<std::mutex> l(m);
    return reused;
  }
};

std::unique_ptr<floe::s3::client> s3_client(world& w) {
  floe::s3::client_config cfg;
  cfg.addressing.endpoint_url = w.srv.proxy;
  cfg.addressing.region = "us-east-1";
  cfg.env = floe::credentials::empty_environment();
  floe::credentials::credentials creds;
  creds.access_key_id = "AKIDFLOEWARMUP00001";
  creds.secret_access_key = floe::credentials::secret_string("warm-up-secret");
  creds.source = "test";
  cfg.credentials = std::make_shared<floe::credentials::static_provider>(std::move(creds));
  cfg.http.proxy = {};
  cfg.http.observer = w.observer();
  auto c = floe::s3::client::create(w.io.get_executor(), std::move(cfg));
  REQUIRE_MESSAGE(c.has_value(), (c ? "" : c.error().what()));
  return std::move(*c);
}

}  // namespace

TEST_CASE("s3 warm-up: n connections opened before any request, and the first n requests at once reuse them") {
  world w;
  auto c = s3_client(w);
  w.run();
  auto e = c->async_warm_up(4, asio::use_future).get();
  REQUIRE_MESSAGE(!e.code, e.what());
  CHECK(w.srv.control.stat("connections") == 4);
  CHECK(w.srv.control.stat("requests") == 0);  // connections only, nothing sent
  CHECK(w.seen().empty());

  std::string const bucket = "floe-warm-up-" + std::to_string(::getpid());
  auto made = c->async_create_bucket(bucket, asio::use_future).get();
  REQUIRE_MESSAGE(made.has_value(), (made ? "" : made.error().what()));
  // Four requests at once: each finds a parked connection.
  std::vector<std::future<floe::result<floe::s3::get_result>>> heads;
  for (int i = 0; i < 4; ++i) heads.push_back(c->async_head_object(bucket, "none-" + std::to_string(i), asio::use_future));
  for (auto& h : heads) {
    auto r = h.get();
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == floe::errc::not_found);  // a reply: the key is missing
  }
  auto const seen = w.seen();
  REQUIRE(seen.size() == 5);
  for (bool r : seen) CHECK(r);
  CHECK(w.srv.control.stat("connections") == 4);
  CHECK(c->http().stats().connections_opened == 4);
  auto gone = c->async_delete_bucket(bucket, asio::use_future).get();
  CHECK_MESSAGE(gone.has_value(), (gone ? "" : gone.error().what()));
}

TEST_CASE("s3 warm-up: for a bucket, as its requests are aimed; a name that cannot be addressed is refused, naming it") {
  world w;
  auto c = s3_client(w);
  w.run();
  auto e = c->async_warm_up("some-bucket", 2, asio::use_future).get();
  REQUIRE_MESSAGE(!e.code, e.what());
  CHECK(w.srv.control.stat("connections") == 2);
  auto bad = c->async_warm_up("bad/bucket", 2, asio::use_future).get();
  CHECK(bad.code == floe::errc::invalid_argument);
  CHECK_MESSAGE(std::string(bad.what()).find("bad/bucket") != std::string::npos, bad.what());
  CHECK(w.srv.control.stat("connections") == 2);
  CHECK(c->http().stats().connections_opened == 2);
}

TEST_CASE("s3 warm-up: a closed port is its error, and nothing is parked") {
  world w;
  floe::s3::client_config cfg;
  cfg.addressing.endpoint_url = "http://127.0.0.1:1";
  cfg.addressing.region = "us-east-1";
  cfg.env = floe::credentials::empty_environment();
  cfg.http.proxy = {};
  auto c = floe::s3::client::create(w.io.get_executor(), std::move(cfg));
  REQUIRE(c.has_value());
  w.run();
  auto e = (*c)->async_warm_up(2, asio::use_future).get();
  CHECK(e.code);
  CHECK_MESSAGE(std::string(e.what()).find("127.0.0.1:1") != std::string::npos, e.what());
  CHECK((*c)->http().idle_connections(floe::http::endpoint{false, "127.0.0.1", 1}) == 0);
}

TEST_CASE("sqs warm-up: n connections opened ahead, and the first requests at once reuse them") {
  world w;
  floe::session_params sp;
  std::map<std::string, std::string> env{{"AWS_REGION", "us-east-1"},
                                         {"AWS_EC2_METADATA_DISABLED", "true"},
                                         {"AWS_ACCESS_KEY_ID", "AKIDFLOEWARMUP00002"},
                                         {"AWS_SECRET_ACCESS_KEY", "warm-up-secret"},
                                         {"HOME", "/nonexistent"}};
  sp.env = [env](std::string_view n) -> std::optional<std::string> {
    auto it = env.find(std::string(n));
    if (it == env.end()) return std::nullopt;
    return it->second;
  };
  sp.http.observer = w.observer();
  auto s = floe::make_session(w.io.get_executor(), sp);
  REQUIRE_MESSAGE(s.has_value(), (s ? "" : s.error().what()));
  floe::sqs::client_options o;
  o.endpoint_url = w.srv.proxy;
  auto c = floe::sqs::client::create(w.io.get_executor(), **s, o);
  REQUIRE_MESSAGE(c.has_value(), (c ? "" : c.error().what()));
  w.run();
  auto e = (*c)->async_warm_up(3, asio::use_future).get();
  REQUIRE_MESSAGE(!e.code, e.what());
  CHECK(w.srv.control.stat("connections") == 3);
  CHECK(w.srv.control.stat("requests") == 0);
  std::vector<std::future<floe::result<floe::sqs::get_queue_url_result>>> calls;
  for (int i = 0; i < 3; ++i) {
    floe::sqs::get_queue_url_params p;
    p.queue_name = "floe-warm-up-none-" + std::to_string(i);
    calls.push_back((*c)->async_call(p, asio::use_future));
  }
  for (auto& f : calls) {
    auto r = f.get();
    REQUIRE_FALSE(r.has_value());
    CHECK_MESSAGE(r.error().code == floe::errc::not_found, r.error().what());  // a reply: no such queue
  }
  auto const seen = w.seen();
  REQUIRE(seen.size() == 3);
  for (bool r : seen) CHECK(r);
  CHECK(w.srv.control.stat("connections") == 3);
}

}  // namespace warm_up_it
