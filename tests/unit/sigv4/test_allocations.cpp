// Heap allocations on the signer's hot path, counted with a replaced global
// operator new: a warm-cache S3 GET header signature must allocate nothing.

#include <floe/sigv4/signer.hpp>
#include <floe/sigv4/uri_encode.hpp>

#include <doctest/doctest.h>

#include <atomic>
#include <cstdlib>
#include <new>

namespace {
std::atomic<bool> counting{false};
std::atomic<long> allocations{0};

void* counted_alloc(std::size_t n) {
  if (counting.load(std::memory_order_relaxed)) allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}

struct count_scope {
  count_scope() {
    allocations = 0;
    counting = true;
  }
  ~count_scope() { counting = false; }
  long count() const { return allocations.load(); }
};
}  // namespace

void* operator new(std::size_t n) { return counted_alloc(n); }
void* operator new[](std::size_t n) { return counted_alloc(n); }
void* operator new(std::size_t n, std::nothrow_t const&) noexcept {
  try {
    return counted_alloc(n);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t n, std::nothrow_t const& t) noexcept { return operator new(n, t); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

using namespace floe::sigv4;
using namespace std::chrono;

namespace {
// A realistic GET: virtual-host bucket, an encoded key, a Range, a token.
struct s3_get {
  std::string path = "/" + uri_encode("logs/2024/05/17/part 0001+x.parquet", false);
  std::array<query_param_view, 1> query{{{"versionId", "3HL4kqtJlcpXroDTDmJ.rmSpXd3dIbrHY"}}};
  std::array<header_view, 3> headers{{{"Host", "my-bucket.s3.eu-west-1.amazonaws.com"},
                                      {"Range", "bytes=0-1048575"},
                                      {"If-Match", "\"9b2cf535f27731c974343645a3985328\""}}};
  credentials_view creds{"ASIAEXAMPLEEXAMPLE12", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                         "IQoJb3JpZ2luX2VjEXAMPLETOKENEXAMPLETOKENEXAMPLETOKENEXAMPLETOKEN/+=="};
  request_view req() const { return {"GET", path, query, headers, empty_payload_sha256}; }
};
auto const t0 = sys_days{year{2024} / 5 / 17} + hours{8} + minutes{9} + seconds{10};
}  // namespace

TEST_CASE("allocation counter sees allocations (self-check)") {
  count_scope c;
  int* volatile p = new int(5);  // volatile: the new/delete pair may not be elided
  delete p;
  CHECK(c.count() == 1);
}

TEST_CASE("warm-cache S3 GET header signature allocates nothing") {
  s3_get g;
  signer s;
  header_signature sig;
  auto const params = signing_params::s3("eu-west-1");
  REQUIRE(s.sign_headers(g.req(), g.creds, params, t0, sig).has_value());  // warms buffers and cache
  long n = 0;
  {
    count_scope c;
    for (int i = 0; i < 100; ++i) {
      // A later second on the same day: same signing key, new signature.
      auto r = s.sign_headers(g.req(), g.creds, params, t0 + seconds(i), sig);
      if (!r) break;
    }
    n = c.count();
  }
  CHECK(n == 0);
  CHECK(s.key_cache().misses() == 1);
  CHECK(sig.signature.size() == 64);
}

TEST_CASE("a cold signing-key cache costs HMACs, not allocations") {
  s3_get g;
  signer s;
  header_signature sig;
  auto const params = signing_params::s3("eu-west-1");
  REQUIRE(s.sign_headers(g.req(), g.creds, params, t0, sig).has_value());
  s.key_cache().clear();
  long n = 0;
  {
    count_scope c;
    auto r = s.sign_headers(g.req(), g.creds, params, t0, sig);
    n = c.count();
    CHECK(r.has_value());
  }
  CHECK(n == 0);
  CHECK(s.key_cache().misses() == 2);
}

TEST_CASE("warm presigning allocates nothing") {
  s3_get g;
  signer s;
  presigned_query q;
  auto const params = signing_params::s3("eu-west-1");
  REQUIRE(s.presign(g.req(), g.creds, params, t0, seconds(900), q).has_value());
  long n = 0;
  {
    count_scope c;
    auto r = s.presign(g.req(), g.creds, params, t0 + seconds(1), seconds(900), q);
    n = c.count();
    CHECK(r.has_value());
  }
  CHECK(n == 0);
}
