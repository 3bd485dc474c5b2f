// put_get: the smallest useful floe program. Creates a bucket, PUTs an
// object and GETs it back, as one coroutine.
//
//   AWS_ENDPOINT_URL=http://127.0.0.1:5000 AWS_ACCESS_KEY_ID=...
//     AWS_SECRET_ACCESS_KEY=... ./put_get BUCKET KEY
//
// Endpoint, region and credentials come from the usual places (AWS_* and
// ~/.aws), as in the AWS SDKs. Exits 0 when the bytes read back are the
// bytes written.

#include <floe/s3/client.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <cstdio>
#include <string>

namespace asio = boost::asio;

// GCC 12 misreads the sized operator delete of Asio's coroutine frames
// (a false positive; floe's own sources silence it the same way).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

// The strings live in main() until io.run() returns.
asio::awaitable<int> put_then_get(floe::s3::client& s3, std::string const& bucket, std::string const& key) {
  // Already there (from an earlier run) is fine; anything else is not.
  auto made = co_await s3.async_create_bucket(bucket);
  if (!made && made.error().diag.code != "BucketAlreadyOwnedByYou") {
    std::fprintf(stderr, "create bucket: %s\n", made.error().what().c_str());
    co_return 1;
  }

  // Named locals, not temporaries, inside co_await (see s3/client.hpp).
  std::string const text = "hello from floe\n";
  auto body = floe::http::body_source::memory(text);
  auto put = co_await s3.async_put_object(bucket, key, body);
  if (!put) {
    std::fprintf(stderr, "put: %s\n", put.error().what().c_str());
    co_return 1;
  }
  std::printf("PUT s3://%s/%s etag %s\n", bucket.c_str(), key.c_str(), put->etag.c_str());

  // asio::use_awaitable: the GET runs in this coroutine (the cheapest form;
  // the default token, asio::deferred, starts a coroutine of its own).
  auto got = co_await s3.async_get_object(bucket, key, asio::use_awaitable);
  if (!got) {
    std::fprintf(stderr, "get: %s\n", got.error().what().c_str());
    co_return 1;
  }
  std::printf("GET %zu bytes, etag %s: %s", got->body.size(), got->info.etag.c_str(), got->body.c_str());
  co_return got->body == text ? 0 : 1;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: put_get BUCKET KEY\n");
    return 2;
  }
  asio::io_context io;
  auto s3 = floe::s3::client::create(io.get_executor());
  if (!s3) {
    std::fprintf(stderr, "%s\n", s3.error().what().c_str());
    return 1;
  }
  std::string const bucket = argv[1], key = argv[2];
  int rc = 1;
  asio::co_spawn(io, put_then_get(**s3, bucket, key), [&rc](std::exception_ptr e, int code) {
    rc = e ? 1 : code;
  });
  io.run();
  return rc;
}
