#pragma once
// What the ledger integration tests share: the store under test (through
// cond_target's private proxy), a fresh bucket, ledgers on it, and a way to
// run coroutines to completion.
#include "cond_fixture.hpp"
#include "cond_target.hpp"

#include <floe/ledger/ledger.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>

#include <doctest/doctest.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace ledger_it {

namespace asio = boost::asio;
using namespace floe::ledger;
using floe::test::cond_target;
using floe::test::finish;

// An entry for an object named `key`, with an ETag of its own (hex, like an MD5's).
inline entry object(std::string const& bucket, std::string const& key) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : key) h = (h ^ ch) * 1099511628211ull;
  char etag[24];
  std::snprintf(etag, sizeof etag, "%016llx", static_cast<unsigned long long>(h));
  return entry{bucket, key, etag, "", key.size()};
}

struct fixture : floe::test::cond_fixture {
  explicit fixture(std::string const& what) : cond_fixture(what) {
    auto& t = cond_target::get();
    // moto decides a create-only PUT in two steps: give it one writer per
    // object at a time, as AWS and RGW have by themselves.
    t.control.call("POST", "/serialize", t.is_rgw() ? R"({"enabled": false})" : R"({"enabled": true})");
  }
  ~fixture() {
    try {
      cond_target::get().control.call("POST", "/serialize", R"({"enabled": false})");
    } catch (...) {
    }
  }

  std::unique_ptr<ledger> open(std::string const& prefix = "ledger", ledger_config cfg = {}) {
    cfg.commit.backoff_base = std::chrono::milliseconds(5);
    cfg.commit.backoff_max = std::chrono::milliseconds(200);
    auto l = ledger::open(*c, bucket, prefix, std::move(cfg));
    REQUIRE_OK(l);
    return std::move(*l);
  }

  template <class T>
  T wait(std::future<T>& f, std::chrono::seconds limit = std::chrono::seconds(120)) {
    return finish(io, f, limit);
  }

  floe::result<init_result> init(ledger& l) {
    auto f = l.async_init(asio::use_future);
    return wait(f);
  }
  floe::result<refresh_result> refresh(ledger& l) {
    auto f = l.async_refresh(asio::use_future);
    return wait(f);
  }
  floe::result<commit_result> commit(ledger& l, std::vector<entry> batch) {
    auto f = l.async_commit(std::move(batch), asio::use_future);
    return wait(f);
  }
  floe::result<verify_report> verify(ledger& l) {
    auto f = l.async_verify(asio::use_future);
    return wait(f, std::chrono::seconds(300));
  }
  // A plain PUT, outside the ledger (to corrupt it on purpose).
  void overwrite(std::string const& key, std::string const& body) {
    auto r = put(key, body);
    REQUIRE_OK(r);
  }

  // Runs the io_context until `running` drops to 0.
  void run_until_done(int const& running, std::chrono::seconds limit) {
    auto const deadline = std::chrono::steady_clock::now() + limit;
    while (running > 0 && std::chrono::steady_clock::now() < deadline) {
      if (io.stopped()) io.restart();
      io.run_one_for(std::chrono::milliseconds(100));
    }
    REQUIRE_MESSAGE(running == 0, "the committers did not finish in time");
  }
};

// A proxy rule on the ledger's commit PUTs in this fixture's bucket.
inline std::string commit_put_rule(std::string const& bucket, std::string const& trigger, std::string const& action) {
  return "{\"match\": {\"method\": \"PUT\", \"path\": " + floe::test::json_str("^/" + bucket + "/.*_log/") +
         "}, \"trigger\": " + trigger + ", \"action\": " + action + "}";
}

// A store's exact reply (a file of the shared error vectors), sent by the proxy.
inline std::string raw_reply(char const* file, char const* when) {
  return std::string("{\"type\": \"reply\", \"when\": \"") + when + "\", \"raw_b64\": \"" +
         floe::test::base64(cond_target::get().vector(file)) + "\"}";
}

}  // namespace ledger_it
