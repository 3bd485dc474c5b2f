// GCC 12 reports false positives inside Asio itself (executor comparison,
// the coroutine frame allocator) once they are inlined here; not floe code.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wnull-dereference"
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

#include "env_map.hpp"

#include <floe/credentials/provider.hpp>
#include <floe/credentials/refreshing.hpp>

#include <boost/asio/bind_executor.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace credentials_provider_test {

using namespace floe::credentials;
namespace asio = boost::asio;

namespace {
credentials sample() {
  credentials c;
  c.access_key_id = "AKID";
  c.secret_access_key = secret_string("SECRET");
  c.source = "test";
  return c;
}
}  // namespace

TEST_CASE("static_provider: get() hands out the set with generation 1; invalidate changes nothing") {
  static_provider p(sample());
  auto c = p.get();
  REQUIRE(c.has_value());
  CHECK(c->generation == 1);
  CHECK_FALSE(p.refreshable());
  p.invalidate(1);
  CHECK(p.get()->access_key_id == "AKID");
  CHECK(p.describe() == "static (test)");
}

TEST_CASE("static_provider: lend() shares the one set get() copies; an error provider lends nothing") {
  static_provider p(sample());
  auto a = p.lend();
  auto b = p.lend();
  REQUIRE(a != nullptr);
  CHECK(a.get() == b.get());  // the same set, not a copy per call
  CHECK(a->access_key_id == p.get()->access_key_id);
  CHECK(a->generation == 1);
  CHECK(a->secret_access_key.reveal() == "SECRET");
  static_provider none(floe::error(floe::errc::credentials_unavailable, "nothing"));
  CHECK(none.lend() == nullptr);
  CHECK_FALSE(none.get().has_value());
}

TEST_CASE("static_provider: async_get completes through the handler's executor, never inline") {
  asio::io_context io;
  static_provider p(sample());
  bool done = false;
  p.async_get(asio::bind_executor(io.get_executor(), [&](floe::result<credentials> r) {
    REQUIRE(r.has_value());
    CHECK(r->access_key_id == "AKID");
    done = true;
  }));
  CHECK_FALSE(done);
  io.run();
  CHECK(done);
}

TEST_CASE("static_provider: co_await async_get() yields a result without throwing") {
  asio::io_context io;
  std::shared_ptr<provider> ok = std::make_shared<static_provider>(sample());
  std::shared_ptr<provider> bad =
      std::make_shared<static_provider>(floe::error(floe::errc::credentials_unavailable, "none here"));
  int checks = 0;
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        auto a = co_await ok->async_get();
        CHECK(a.has_value());
        auto b = co_await bad->async_get(asio::deferred);
        REQUIRE(b.has_error());
        CHECK(b.error().code == floe::errc::credentials_unavailable);
        CHECK(b.error().diag.message == "none here");
        auto c = co_await ok->async_get(asio::use_awaitable);
        CHECK(c->generation == 1);
        checks = 3;
      },
      asio::detached);
  io.run();
  CHECK(checks == 3);
}

namespace {
// A source whose sets expire on 9999-12-31, past the refresh policy's clock
// (nanoseconds since 1970 end in 2262).
class far_future_source final : public refreshing_source {
 public:
  asio::awaitable<floe::result<credentials>> fetch() override {
    auto c = sample();
    c.expiry = std::chrono::sys_days{std::chrono::year{9999} / 12 / 31};
    co_return c;
  }
  std::string describe() const override { return "far future"; }
};
}  // namespace

// Found with fuzz_json_credentials: converting such an expiry to the
// policy's clock overflowed (undefined behaviour; in practice a wrapped time).
TEST_CASE("refreshing_provider: an expiry past the year 2262 saturates instead of overflowing") {
  asio::io_context io;
  auto p = refreshing_provider::create(io.get_executor(), std::make_unique<far_future_source>());
  std::optional<floe::result<credentials>> got;
  p->async_get(asio::bind_executor(io.get_executor(), [&](floe::result<credentials> r) { got = std::move(r); }));
  io.run();
  REQUIRE(got.has_value());
  REQUIRE(got->has_value());
  CHECK(p->get().has_value());  // served from the cache: neither expired nor due for a refresh
  CHECK(p->stats().expiry == std::chrono::system_clock::time_point::max());
}

TEST_CASE("resolve_static_credentials: the environment comes before the shared files") {
  auto r = resolve_static_credentials(
      env_of({{"AWS_ACCESS_KEY_ID", "ENVKEY"}, {"AWS_SECRET_ACCESS_KEY", "S"}, {"HOME", "/nonexistent-floe"}}));
  REQUIRE(r.has_value());
  CHECK(r->source == "environment");
}

TEST_CASE("resolve_static_credentials: a broken environment stops the search") {
  auto r = resolve_static_credentials(env_of({{"AWS_ACCESS_KEY_ID", "ENVKEY"}}));
  REQUIRE(r.has_error());
  CHECK(r.error().code == floe::errc::invalid_argument);
}

TEST_CASE("resolve_static_credentials: when nothing is configured the error names each source") {
  auto r = resolve_static_credentials(env_of({{"HOME", "/nonexistent-floe"}}));
  REQUIRE(r.has_error());
  CHECK(r.error().code == floe::errc::credentials_unavailable);
  auto const& m = r.error().diag.message;
  CHECK(m.find("environment: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set") != std::string::npos);
  CHECK(m.find("/nonexistent-floe/.aws/credentials (not found)") != std::string::npos);
  auto p = make_static_provider(env_of({{"HOME", "/nonexistent-floe"}}));
  CHECK(p->get().has_error());
  CHECK(p->describe() == "static (no credentials)");
}

TEST_CASE("resolve_static_credentials: shared files with the profile from AWS_PROFILE") {
  namespace fs = std::filesystem;
  std::string tmpl = (fs::temp_directory_path() / "floe-prov-XXXXXX").string();
  REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
  {
    std::ofstream(fs::path(tmpl) / "creds") << "[default]\naws_access_key_id = D\naws_secret_access_key = S\n"
                                               "[dev]\naws_access_key_id = DEV\naws_secret_access_key = S\n";
  }
  auto r = resolve_static_credentials(env_of({{"AWS_SHARED_CREDENTIALS_FILE", tmpl + "/creds"},
                                              {"AWS_CONFIG_FILE", tmpl + "/none"},
                                              {"AWS_PROFILE", "dev"}}));
  REQUIRE(r.has_value());
  CHECK(r->access_key_id == "DEV");
  std::error_code ec;
  fs::remove_all(tmpl, ec);
}

}  // namespace credentials_provider_test
