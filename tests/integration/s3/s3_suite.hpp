#pragma once
// The shared fixture of the S3 integration program (test_*.cpp beside this
// header, linked into one executable): the S3 operations against a real store,
// moto and a real Ceph RGW 16.2.15, the same cases for both (meson runs the
// program once per store, naming it in FLOE_TEST_S3_TARGET). Every request goes
// through the test proxy with its SigV4 verifier on; each case ends by checking
// that the verifier rejected nothing it was not meant to.
//
// Included only by this program's sources, so it also sets their vocabulary
// (asio, fs, client, ...). Helpers are inline, not file-local: bucket_name's
// counter must be one per process for names never to repeat.
#include "child_process.hpp"
#include "s3_target.hpp"

#include <floe/credentials/provider.hpp>
#include <floe/s3/client.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>

#include <doctest/doctest.h>

#include <openssl/evp.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace asio = boost::asio;
namespace fs = std::filesystem;
using namespace std::chrono_literals;
using floe::errc;
using floe::http::body_source;
using floe::s3::client;
using floe::s3::client_config;
using floe::test::s3_target;


// Runs the io_context until the future is ready (or `limit` passes).
template <class T>
T finish(asio::io_context& io, std::future<T>& f, std::chrono::seconds limit = 60s) {
  auto const deadline = std::chrono::steady_clock::now() + limit;
  while (f.wait_for(0s) != std::future_status::ready) {
    if (std::chrono::steady_clock::now() > deadline) FAIL("operation did not complete in " << limit.count() << " s");
    { if (io.stopped()) io.restart(); io.run_one_for(50ms); }
  }
  return f.get();
}

// Runs `io` until `done()` holds or `limit` passes; returns done().
template <class Done>
bool run_until(asio::io_context& io, Done done, std::chrono::seconds limit) {
  auto const deadline = std::chrono::steady_clock::now() + limit;
  while (!done() && std::chrono::steady_clock::now() < deadline) {
    if (io.stopped()) io.restart();
    io.run_one_for(20ms);
  }
  return done();
}

// A bucket name of our own for one case: unique per process, so that runs
// against a store that outlived an earlier run never collide.
inline std::string bucket_name(std::string const& what) {
  static unsigned n = 0;
  return "floe-" + what + "-" + std::to_string(::getpid()) + "-" + std::to_string(++n);
}

// n bytes of a xorshift sequence from seed (and offset): the same bytes on
// every run, different for each seed.
inline std::string pattern_bytes(std::size_t n, unsigned seed, std::uint32_t offset) {
  std::string s(n, '\0');
  std::uint32_t x = seed * 2654435761u + offset;
  for (auto& c : s) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    c = static_cast<char>(x);
  }
  return s;
}

inline client_config base_config(std::string const& secret) {
  auto& t = s3_target::get();
  client_config cfg;
  cfg.addressing.endpoint_url = t.endpoint;
  cfg.addressing.region = "us-east-1";
  cfg.env = floe::credentials::empty_environment();
  floe::credentials::credentials creds;
  creds.access_key_id = t.access_key;
  creds.secret_access_key = floe::credentials::secret_string(secret);
  creds.source = "test";
  cfg.credentials = std::make_shared<floe::credentials::static_provider>(std::move(creds));
  cfg.http.proxy = {};
  cfg.http.retry.base_delay = 5ms;
  cfg.http.connect_timeout = 5s;
  cfg.http.idle_timeout = 20s;
  // These tests count the requests a store gets: no second copy of a read
  // of floe's own making, even on a loaded machine (hedged reads and the
  // late bound have their own tests: service-hedge).
  cfg.hedge.enabled = false;
  cfg.hedge.late_min = 120s;
  return cfg;
}

// base_config with 5 MiB parts (the least S3 takes) from 5 MiB up: a few MiB
// of file make a multipart upload.
inline client_config multipart_config() {
  auto cfg = base_config(s3_target::get().secret_key);
  cfg.multipart_threshold = 5u << 20;
  cfg.part_size = 5u << 20;
  return cfg;
}

// The same for copies: UploadPartCopy ranges of 5 MiB from 5 MiB up.
inline client_config multipart_copy_config() {
  auto cfg = base_config(s3_target::get().secret_key);
  cfg.multipart_copy_threshold = 5u << 20;
  cfg.copy_part_size = 5u << 20;
  return cfg;
}

inline std::unique_ptr<client> make_client(asio::io_context& io, client_config cfg) {
  auto c = client::create(io.get_executor(), std::move(cfg));
  REQUIRE_MESSAGE(c.has_value(), (c.has_value() ? std::string() : c.error().what()));
  return std::move(*c);
}

inline std::unique_ptr<client> make_client(asio::io_context& io) {
  return make_client(io, base_config(s3_target::get().secret_key));
}

#define REQUIRE_OK(r) REQUIRE_MESSAGE((r).has_value(), ((r).has_value() ? std::string() : (r).error().what()))

// A case's bucket: created at the start, emptied and deleted at the end.
struct bucket_guard {
  asio::io_context& io;
  client& c;
  std::string name;

  bucket_guard(asio::io_context& i, client& cl, std::string const& what) : io(i), c(cl), name(bucket_name(what)) {
    auto f = c.async_create_bucket(name, asio::use_future);
    auto r = finish(io, f);
    REQUIRE_OK(r);
  }
  ~bucket_guard() {
    try {
      auto lf = c.async_list_objects(name, asio::use_future);
      auto l = finish(io, lf, 120s);
      if (l && !l->objects.empty()) {
        std::vector<std::string> keys;
        for (auto const& o : l->objects) keys.push_back(o.key);
        auto df = c.async_delete_objects(name, std::move(keys), asio::use_future);
        (void)finish(io, df, 120s);
      }
      auto bf = c.async_delete_bucket(name, asio::use_future);
      (void)finish(io, bf);
    } catch (...) {
    }
  }
};

// Each case starts with a clean proxy (rules, counters) and ends with no
// signature rejected unless it expected some.
struct proxy_scope {
  std::int64_t expected_failures = 0;
  proxy_scope() { s3_target::get().control.reset(); }
  ~proxy_scope() {
    std::int64_t n = -1;
    try {
      n = s3_target::get().control.stat("signature_failures");
    } catch (std::exception const& e) {
      FAIL_CHECK("proxy control: " << e.what());
      return;
    }
    if (n != expected_failures)
      FAIL_CHECK("the proxy's SigV4 verifier rejected " << n << " request(s), expected " << expected_failures);
  }
};

inline floe::result<floe::s3::put_result> put(asio::io_context& io, client& c, std::string const& b,
                                              std::string const& k, std::string const& data) {
  auto body = body_source::memory(data);
  auto f = c.async_put_object(b, k, body, asio::use_future);
  return finish(io, f);
}

inline floe::result<floe::s3::get_result> get(asio::io_context& io, client& c, std::string const& b,
                                              std::string const& k) {
  auto f = c.async_get_object(b, k, asio::use_future);
  return finish(io, f);
}

inline std::string sha256_file(std::string const& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr);
  std::vector<char> buf(1 << 20);
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    auto n = in.gcount();
    if (n > 0) EVP_DigestUpdate(ctx, buf.data(), static_cast<std::size_t>(n));
  }
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned len = 0;
  EVP_DigestFinal_ex(ctx, md, &len);
  EVP_MD_CTX_free(ctx);
  std::string hex;
  char tmp[3];
  for (unsigned i = 0; i < len; ++i) {
    std::snprintf(tmp, sizeof tmp, "%02x", md[i]);
    hex += tmp;
  }
  return hex;
}

// Deterministic, incompressible-looking bytes (xorshift).
inline void write_pattern_file(std::string const& path, std::uint64_t size, std::uint64_t seed) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  REQUIRE(out.good());
  std::vector<std::uint64_t> buf(1 << 17);  // 1 MiB
  std::uint64_t x = seed | 1;
  std::uint64_t left = size;
  while (left > 0) {
    for (auto& w : buf) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      w = x;
    }
    auto const n = std::min<std::uint64_t>(left, buf.size() * sizeof(std::uint64_t));
    out.write(reinterpret_cast<char const*>(buf.data()), static_cast<std::streamsize>(n));
    left -= n;
  }
  REQUIRE(out.good());
}

struct temp_dir {
  fs::path path;
  temp_dir() {
    char tmpl[] = "/tmp/floe-s3-it-XXXXXX";
    REQUIRE(::mkdtemp(tmpl) != nullptr);
    path = tmpl;
  }
  ~temp_dir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string file(std::string const& name) const { return (path / name).string(); }
  // file(name), written with write_pattern_file(size, seed).
  std::string pattern_file(std::string const& name, std::uint64_t size, std::uint64_t seed) const {
    auto f = file(name);
    write_pattern_file(f, size, seed);
    return f;
  }
};

// A JSON string literal (for proxy rules).
inline std::string json_str(std::string_view s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (static_cast<unsigned char>(ch) < 0x20) {
      char esc[8];
      std::snprintf(esc, sizeof esc, "\\u%04x", static_cast<unsigned>(ch));
      out += esc;
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

// Standard base64 (for raw replies in proxy rules).
inline std::string base64(std::string_view data) {
  std::string out(4 * ((data.size() + 2) / 3) + 1, '\0');
  int const n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<unsigned char const*>(data.data()), static_cast<int>(data.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

// User metadata as the tests compare it: sorted pairs.
using meta = std::vector<std::pair<std::string, std::string>>;
