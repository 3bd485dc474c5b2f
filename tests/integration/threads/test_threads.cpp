// The threading and lifetime contract (issue 21), against moto through the
// private test proxy (verifier on, the auth gate) of the credential tests:
// an S3 client on a strand of a four-thread io_context awaited from
// coroutines on none of its strands with every kind of token, sharing one
// refreshing cache through a revocation; and a client destroyed right
// after its multipart upload failed, whose abort must still run.

#include "cred_world.hpp"  // tests/integration/credentials

#include <boost/asio/deferred.hpp>
#include <boost/asio/detached.hpp>
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <future>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

// Its own namespace: it shares a build unit with other test files
// (tests/integration/meson.build).
namespace threads_threads_it {

namespace asio = boost::asio;
using namespace std::chrono_literals;
using floe::test::world;

TEST_CASE("four threads, coroutines off the client's strand, every kind of token: 64 requests, a revocation, one refresh") {
  std::atomic<unsigned> exchanges{0};
  std::atomic<unsigned> off_strand{0};
  world* self = nullptr;  // set before the first request
  world w({}, {}, [&](floe::s3::client_config& c) {
    // Every exchange of the client must run on its strand, whoever started it.
    c.http.observer = [&](floe::http::exchange_view const&) {
      ++exchanges;
      if (!self->client_strand->running_in_this_thread()) ++off_strand;
    };
  }, 4);
  self = &w;
  REQUIRE(w.client_strand.has_value());
  std::string const bucket = "threads-story";
  w.make_bucket(bucket, "k");
  constexpr int n = 64;
  w.put_objects(bucket, n);
  REQUIRE(w.sts_calls() == 1);

  // Every key issued so far is revoked when the proxy forwards the 16th GET:
  // the GETs after it meet a 403 with the cached set and force a refresh.
  w.srv.control.call("POST", "/revoke",
                     R"({"access_keys": "all-issued", "after_forwarded": 16, "match": {"service": "s3", "path": "^/threads-story/k"}})");

  std::mutex mu;
  std::vector<std::optional<floe::result<floe::s3::get_result>>> results(n);
  std::atomic<int> left{n};
  std::atomic<unsigned> callbacks_off_strand{0};
  std::promise<void> all_done;
  auto finish = [&](int i, floe::result<floe::s3::get_result> r) {
    {
      std::lock_guard lk(mu);
      results[static_cast<std::size_t>(i)] = std::move(r);
    }
    if (--left == 0) all_done.set_value();
  };
  for (int i = 0; i < n; ++i) {
    // On the io_context's plain executor: none of the client's strand.
    asio::co_spawn(
        w.io,
        [&, i]() -> asio::awaitable<void> {
          std::string const key = "k" + std::to_string(i);
          switch (i % 4) {
            case 0:
              finish(i, co_await w.s3->async_get_object(bucket, key));
              break;
            case 1:
              finish(i, co_await w.s3->async_get_object(bucket, key, asio::deferred));
              break;
            case 2:
              finish(i, co_await w.s3->async_get_object(bucket, key, asio::use_awaitable));
              break;
            default:
              // A callback without an executor of its own completes on the client's.
              w.s3->async_get_object(bucket, key, [&, i](floe::result<floe::s3::get_result> r) {
                if (!w.client_strand->running_in_this_thread()) ++callbacks_off_strand;
                finish(i, std::move(r));
              });
          }
        },
        asio::detached);
  }
  REQUIRE_MESSAGE(all_done.get_future().wait_for(120s) == std::future_status::ready, left.load() << " requests never completed");

  std::lock_guard lk(mu);
  for (int i = 0; i < n; ++i) {
    auto const& r = results[static_cast<std::size_t>(i)];
    REQUIRE(r.has_value());
    CHECK_MESSAGE(r->has_value(), "k" << i << ": " << (*r ? std::string() : r->error().what()));
    if (*r) CHECK((*r)->body == "hello");
  }
  CHECK(w.srv.control.stat("revoked_rejections") >= 1);  // the revocation did meet requests
  CHECK(w.sts_calls() == 2);                              // one refresh healed them all
  CHECK(exchanges.load() >= static_cast<unsigned>(n));
  CHECK(off_strand.load() == 0);
  CHECK(callbacks_off_strand.load() == 0);
}

TEST_CASE("a client destroyed right after its multipart upload failed: the abort still runs and ends the upload") {
  struct seen_t {
    std::mutex mu;
    std::vector<unsigned> creates, aborts;  // statuses
  } seen;
  world w({}, {}, [&](floe::s3::client_config& c) {
    c.multipart_threshold = 5u << 20;
    c.part_size = 5u << 20;
    c.multipart_concurrency = 1;
    c.http.retry.max_attempts = 1;
    c.http.observer = [&](floe::http::exchange_view const& v) {
      std::lock_guard lk(seen.mu);
      if (v.method == "POST" && v.target.find("?uploads") != std::string_view::npos) seen.creates.push_back(v.status);
      if (v.method == "DELETE" && v.target.find("uploadId=") != std::string_view::npos) seen.aborts.push_back(v.status);
    };
  });
  std::string const bucket = "threads-abort";
  w.make_bucket(bucket, "k");
  std::string const src = w.dir + "/src";
  {
    std::ofstream out(src, std::ios::binary);
    out << std::string(11u << 20, 'x');  // three parts
  }
  int const fail = w.srv.control.add_rule(
      R"({"match": {"method": "PUT", "path": "^/threads-abort/obj$", "query": "partNumber=2&"}, "action": {"type": "reply", "status": 400, "headers": {"Content-Type": "application/xml"}, "body": "<Error><Code>InvalidRequest</Code><Message>refused by the test</Message><RequestId>R</RequestId></Error>"}})");

  // The upload and the client's end in one turn of the client's executor:
  // the abort, started detached when the upload failed, has not run yet.
  auto failed = w.run([&]() -> asio::awaitable<floe::result<floe::s3::put_result>> {
    auto r = co_await w.s3->async_upload_file(bucket, "obj", src, asio::use_awaitable);
    w.s3.reset();
    co_return r;
  });
  REQUIRE_FALSE(failed.has_value());
  CHECK(failed.error().diag.operation == "UploadPart");
  CHECK(w.srv.control.rule_counter(fail, "fired") == 1);
  CHECK(w.s3 == nullptr);

  // The io_context keeps running: wait (bounded) for the abort's reply.
  auto const deadline = std::chrono::steady_clock::now() + 30s;
  for (;;) {
    {
      std::lock_guard lk(seen.mu);
      if (!seen.aborts.empty()) break;
    }
    REQUIRE_MESSAGE(std::chrono::steady_clock::now() < deadline, "the multipart upload was never aborted");
    std::this_thread::sleep_for(5ms);
  }
  {
    std::lock_guard lk(seen.mu);
    REQUIRE(seen.creates.size() == 1);
    CHECK(seen.creates[0] == 200);
    REQUIRE(seen.aborts.size() == 1);
    CHECK(seen.aborts[0] == 204);
  }
  // The store agrees: no upload left in the bucket (moto, asked directly).
  auto const list = floe::test::http_call(floe::test::need_env("FLOE_TEST_MOTO_ENDPOINT"), "GET", "/threads-abort?uploads");
  REQUIRE(list.status == 200);
  CHECK(list.body.find("<ListMultipartUploadsResult") != std::string::npos);
  CHECK(list.body.find("<Upload>") == std::string::npos);
}

}  // namespace threads_threads_it
