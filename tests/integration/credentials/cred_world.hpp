#pragma once
// The world of the credential tests (test_refreshing.cpp) and of the
// threading tests (tests/integration/threads): a private test proxy in
// front of moto as the auth gate, web identity through moto's STS behind a
// refreshing cache whose expiry a test clock drives, and an S3 client
// using that cache.

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wnull-dereference"
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

#include "servers.hpp"  // tests/integration/http: the private proxy

#include <floe/providers/web_identity.hpp>
#include <floe/s3/client.hpp>
#include <floe/sts/client.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace floe::test {

namespace asio = boost::asio;
using namespace std::chrono_literals;

using sys_clock = std::chrono::system_clock;

// A clock the test moves: it reads the real time once, then stands still
// until the test advances it, so the cache's windows (advisory, back-off)
// open and close only where the test says, however long the requests in
// between take. On the wall clock a one-second failure back-off can lapse
// while a loaded moto answers the test's next request, and the cache then
// rightly fetches again.
struct test_clock {
  sys_clock::time_point const start = sys_clock::now();
  std::atomic<sys_clock::duration::rep> offset{0};
  sys_clock::time_point now() const { return start + sys_clock::duration(offset.load()); }
  void advance(sys_clock::duration d) { offset += d.count(); }
};

// Web identity through STS, with the expiry moved onto the test clock (moto
// dates its sets by the real clock), so time can run ahead without sleeps.
class clocked_source final : public floe::credentials::refreshing_source {
 public:
  clocked_source(std::unique_ptr<floe::credentials::web_identity_source> inner, test_clock& clk)
      : inner_(std::move(inner)), clock_(clk) {}
  asio::awaitable<floe::result<floe::credentials::credentials>> fetch() override {
    auto r = co_await inner_->fetch();
    if (r && r->expiry) {
      auto shift = std::chrono::duration_cast<std::chrono::seconds>(sys_clock::duration(clock_.offset.load()));
      *r->expiry += shift;
    }
    co_return r;
  }
  std::string describe() const override { return inner_->describe(); }
  floe::sts::client& sts() { return inner_->sts(); }

 private:
  std::unique_ptr<floe::credentials::web_identity_source> inner_;
  test_clock& clock_;
};

inline std::string temp_dir() {
  char tmpl[] = "/tmp/floe-cred-test-XXXXXX";
  REQUIRE(::mkdtemp(tmpl) != nullptr);
  return tmpl;
}

inline void write_file(std::string const& path, std::string const& text) {
  std::string const tmp = path + ".new";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
  }
  std::filesystem::rename(tmp, path);  // replaced as the kubelet does: a new file
}

// One test's world: the proxy (reset, verifier on), a web identity cache,
// an S3 client using it, an io_context run on `threads` threads. With more
// than one, the cache (with its STS client) and the S3 client each get a
// strand of their own, as their headers ask; `run` starts its coroutines
// on the io_context's plain executor, on neither strand.
struct world {
  servers& srv = servers::get();
  test_clock clock;
  std::string dir = temp_dir();
  std::string token_file = dir + "/token";
  std::map<std::string, std::string> env_map;
  asio::io_context io;
  asio::executor_work_guard<asio::io_context::executor_type> work = asio::make_work_guard(io);
  std::vector<std::thread> runners;
  using strand = asio::strand<asio::io_context::executor_type>;
  std::optional<strand> cache_strand;   // set with threads > 1
  std::optional<strand> client_strand;  // set with threads > 1
  clocked_source* source = nullptr;
  std::shared_ptr<floe::credentials::refreshing_provider> provider;
  std::unique_ptr<floe::s3::client> s3;

  using s3_tweak = std::function<void(floe::s3::client_config&)>;
  explicit world(floe::refresh::params policy = {}, floe::sts::client_config sts_cfg = {}, s3_tweak tweak = {},
                 unsigned threads = 1) {
    asio::any_io_executor cache_ex = io.get_executor();
    asio::any_io_executor client_ex = io.get_executor();
    if (threads > 1) {
      cache_ex = cache_strand.emplace(asio::make_strand(io));
      client_ex = client_strand.emplace(asio::make_strand(io));
    }
    srv.control.reset();
    srv.control.call("POST", "/verify", R"({"enabled": true})");
    write_file(token_file, "token-A");
    env_map = {{"AWS_ENDPOINT_URL_STS", srv.proxy},
               {"AWS_REGION", "us-east-1"},
               {"AWS_ROLE_ARN", "arn:aws:iam::123456789012:role/floe-test"},
               {"AWS_WEB_IDENTITY_TOKEN_FILE", token_file},
               {"AWS_ROLE_SESSION_NAME", "floe-cred-test"},
               {"AWS_EC2_METADATA_DISABLED", "true"}};
    auto env = lookup();
    auto cfg = floe::credentials::web_identity_from_environment(env);
    REQUIRE(cfg.has_value());
    REQUIRE(cfg->has_value());
    sts_cfg.env = env;
    auto inner = floe::credentials::web_identity_source::create(cache_ex, **cfg, sts_cfg);
    REQUIRE(inner.has_value());
    auto src = std::make_unique<clocked_source>(std::move(*inner), clock);
    source = src.get();
    floe::credentials::refreshing_params rp;
    rp.policy = policy;
    rp.clock = [this] { return clock.now(); };
    rp.random = [] { return 1.0; };
    provider = floe::credentials::refreshing_provider::create(cache_ex, std::move(src), rp);
    floe::s3::client_config sc;
    sc.env = env;
    sc.addressing.endpoint_url = srv.proxy;
    sc.addressing.region = "us-east-1";
    sc.addressing.style = floe::s3::addressing_style::path;
    sc.credentials = provider;
    if (tweak) tweak(sc);
    auto c = floe::s3::client::create(client_ex, sc);
    REQUIRE(c.has_value());
    s3 = std::move(*c);
    for (unsigned i = 0; i < std::max(1u, threads); ++i) runners.emplace_back([this] { io.run(); });
  }
  ~world() {
    // A failed check may leave a request behind a held STS call: release
    // it so the failure is reported now, not after the client's timeout.
    try {
      srv.control.reset();
    } catch (...) {
    }
    work.reset();
    for (auto& t : runners) t.join();
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  floe::credentials::env_lookup lookup() const {
    auto m = env_map;
    return [m](std::string_view n) -> std::optional<std::string> {
      auto it = m.find(std::string(n));
      if (it == m.end()) return std::nullopt;
      return it->second;
    };
  }

  template <class F>
  auto run(F f) {
    return asio::co_spawn(io, std::move(f), asio::use_future).get();
  }
  floe::result<floe::s3::get_result> head(std::string const& bucket, std::string const& key) {
    return run([&]() -> asio::awaitable<floe::result<floe::s3::get_result>> {
      co_return co_await s3->async_head_object(bucket, key, asio::use_awaitable);
    });
  }
  floe::result<floe::s3::get_result> get(std::string const& bucket, std::string const& key) {
    return run([&]() -> asio::awaitable<floe::result<floe::s3::get_result>> {
      co_return co_await s3->async_get_object(bucket, key, asio::use_awaitable);
    });
  }
  // Creates `bucket` and puts "hello" at `key`.
  void make_bucket(std::string const& bucket, std::string const& key) {
    auto made = run([&]() -> asio::awaitable<floe::result<void>> {
      co_return co_await s3->async_create_bucket(bucket, asio::use_awaitable);
    });
    REQUIRE_MESSAGE(made.has_value(), (made ? std::string() : made.error().what()));
    put_hello(bucket, {key});
  }
  // Runs `f` on the io thread (quotas live on their client's executor).
  template <class F>
  void on_io(F f) {
    run([&]() -> asio::awaitable<void> {
      f();
      co_return;
    });
  }
  // Puts "hello" at k0 .. k<n-1>.
  void put_objects(std::string const& bucket, int n) {
    std::vector<std::string> keys;
    for (int i = 0; i < n; ++i) keys.push_back("k" + std::to_string(i));
    put_hello(bucket, keys);
  }
  void put_hello(std::string const& bucket, std::vector<std::string> const& keys) {
    auto made = run([&]() -> asio::awaitable<floe::result<void>> {
      std::string const body = "hello";
      for (auto const& key : keys) {
        auto src = floe::http::body_source::memory(body);
        auto p = co_await s3->async_put_object(bucket, key, src, asio::use_awaitable);
        if (!p) co_return p.error();
      }
      co_return floe::result<void>();
    });
    REQUIRE_MESSAGE(made.has_value(), (made ? std::string() : made.error().what()));
  }
  floe::result<floe::credentials::credentials> creds() {
    return run([&]() -> asio::awaitable<floe::result<floe::credentials::credentials>> {
      co_return co_await provider->async_get(asio::use_awaitable);
    });
  }
  std::int64_t sts_calls() {
    auto s = srv.control.call("GET", "/stats");
    auto at = s.find("\"sts\"");
    if (at == std::string::npos) return 0;
    return floe::test::json_int(s.substr(at), "sts");
  }
  // Polls a proxy counter until it reaches `n` (a condition, not a delay).
  void await_stat(std::string const& name, std::int64_t n) {
    auto const deadline = std::chrono::steady_clock::now() + 30s;
    while (srv.control.stat(name) < n) {
      REQUIRE_MESSAGE(std::chrono::steady_clock::now() < deadline, "proxy counter " << name << " never reached " << n);
      std::this_thread::sleep_for(5ms);
    }
  }
  // Polls until `n` requests have been parked behind a fetch since `base`
  // (a request that had its 403 parks after it; one that asked for keys
  // after the invalidation parks without being sent): all of them are then
  // waiting for the one fetch, however the scheduler interleaved them.
  void await_waits(std::uint64_t base, std::uint64_t n) {
    auto const deadline = std::chrono::steady_clock::now() + 30s;
    while (provider->stats().waits - base < n) {
      REQUIRE_MESSAGE(std::chrono::steady_clock::now() < deadline,
                      "only " << provider->stats().waits - base << " of " << n << " requests waited for a fetch");
      std::this_thread::sleep_for(5ms);
    }
  }
  void await_held(int rule, std::int64_t n) {
    auto const deadline = std::chrono::steady_clock::now() + 30s;
    while (srv.control.rule_counter(rule, "held") < n) {
      REQUIRE_MESSAGE(std::chrono::steady_clock::now() < deadline, "rule " << rule << " never held " << n);
      std::this_thread::sleep_for(5ms);
    }
  }
};

}  // namespace floe::test
