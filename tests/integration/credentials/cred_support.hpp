#pragma once
// What the credential-source integration tests share: the emulator of
// tests/support/cred_servers.py (one per test program), an io_context on a
// thread, environment lookups over maps, temporary directories and files.

#include "servers.hpp"

#include <floe/credentials/environment.hpp>
#include <floe/credentials/provider.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <string_view>
#include <thread>

namespace cred_test {

namespace asio = boost::asio;

inline std::string temp_dir() {
  char tmpl[] = "/tmp/floe-chain-test-XXXXXX";
  REQUIRE(::mkdtemp(tmpl) != nullptr);
  return tmpl;
}

inline void write_file(std::string const& path, std::string const& text, bool exec = false) {
  std::string const tmp = path + ".new";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
  }
  if (exec) std::filesystem::permissions(tmp, std::filesystem::perms::owner_all);
  std::filesystem::rename(tmp, path);
}

inline bool contains(std::string const& hay, std::string const& needle) { return hay.find(needle) != std::string::npos; }

// The emulator (tests/support/cred_servers.py) on a free port, for the
// whole program.
struct emulator {
  floe::test::child_process proc;
  std::string base;
  static emulator& get() {
    static emulator e;
    if (e.base.empty()) {
      std::string const root = floe::test::need_env("FLOE_SOURCE_ROOT");
      auto info = e.proc.start({"python3", root + "/tests/support/cred_servers.py"});
      e.base = "http://127.0.0.1:" + std::to_string(floe::test::json_int(info, "port"));
    }
    return e;
  }
  emulator() = default;
  emulator(emulator&&) = delete;
  std::string control(std::string_view method, std::string const& path, std::string const& body = "") {
    return floe::test::http_call(base, method, path, body).body;
  }
  std::int64_t stat(std::string const& name) { return floe::test::json_int(control("GET", "/_control/stats"), name); }
};

// An io_context on a thread, and helpers to run coroutines on it.
struct loop {
  asio::io_context io;
  asio::executor_work_guard<asio::io_context::executor_type> work = asio::make_work_guard(io);
  std::thread runner{[this] { io.run(); }};
  ~loop() {
    work.reset();
    runner.join();
  }
  template <class F>
  auto run(F f) {
    return asio::co_spawn(io, std::move(f), asio::use_future).get();
  }
  floe::result<floe::credentials::credentials> get(floe::credentials::provider& p) {
    return run([&]() -> asio::awaitable<floe::result<floe::credentials::credentials>> {
      co_return co_await p.async_get(asio::use_awaitable);
    });
  }
};

inline floe::credentials::env_lookup env_of(std::map<std::string, std::string> m) {
  return [m = std::move(m)](std::string_view n) -> std::optional<std::string> {
    auto it = m.find(std::string(n));
    if (it == m.end()) return std::nullopt;
    return it->second;
  };
}

// An environment with container credentials and IMDS both configured, both
// served by the emulator: whichever the chain asks shows in its counters.
inline floe::credentials::env_lookup container_and_imds(std::string const& home, std::string const& token) {
  auto const& em = emulator::get();
  return env_of({{"HOME", home},
                 {"AWS_EC2_METADATA_SERVICE_ENDPOINT", em.base},
                 {"AWS_CONTAINER_CREDENTIALS_FULL_URI", em.base + "/container/creds"},
                 {"AWS_CONTAINER_AUTHORIZATION_TOKEN", token}});
}

}  // namespace cred_test
