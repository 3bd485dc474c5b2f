// floe's S3 client on the small-object scenarios of bench/run: signed GETs or
// PUTs of a 1 KiB object, N in all, with K in flight from one thread (K = 1:
// sequential on one connection). Prints one JSON line: requests/s, client CPU
// µs per request (getrusage), heap allocations per request (the malloc family
// is replaced by counting wrappers, so Asio, Beast, OpenSSL and libxml2 are
// counted too), peak RSS, failures. A program, not a test.
//
//   bench_s3 get ENDPOINT BUCKET KEY N INFLIGHT
//   bench_s3 put ENDPOINT BUCKET PREFIX N INFLIGHT     (keys PREFIX/0 .. PREFIX/N-1)
//
// With FLOE_BENCH_TRACE_ALLOCS=1 in the environment, every allocation of the
// measured part prints its call stack to stderr (raw frames; pipe through
// c++filt): run it with N=1 to see where one warm request allocates.
//
// Credentials come from the environment (AWS_ACCESS_KEY_ID, ...); the
// endpoint is path style. Every request is signed (SigV4, warm key cache);
// PUT bodies are signed as UNSIGNED-PAYLOAD or hashed as the client decides.
#include <floe/s3/client.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>

#include <execinfo.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
void* __libc_memalign(std::size_t, std::size_t);
void __libc_free(void*);
}

namespace {
std::atomic<std::uint64_t> g_allocs{0};
std::atomic<bool> g_trace{false};
thread_local bool t_in_trace = false;

// backtrace_symbols_fd writes without allocating; backtrace() may allocate
// once (loading the unwinder), hence the re-entry guard.
void count_alloc(char const* what, std::size_t n) {
  g_allocs.fetch_add(1, std::memory_order_relaxed);
  if (!g_trace.load(std::memory_order_relaxed) || t_in_trace) return;
  t_in_trace = true;
  void* frames[24];
  int const depth = backtrace(frames, 24);
  char line[64];
  int const len = std::snprintf(line, sizeof line, "== %s %zu\n", what, n);
  if (len > 0) (void)!::write(2, line, static_cast<std::size_t>(len));
  if (depth > 2) backtrace_symbols_fd(frames + 2, depth - 2, 2);
  t_in_trace = false;
}
}  // namespace

extern "C" {
void* malloc(std::size_t n) {
  count_alloc("malloc", n);
  return __libc_malloc(n);
}
void* calloc(std::size_t n, std::size_t m) {
  count_alloc("calloc", n * m);
  return __libc_calloc(n, m);
}
void* realloc(void* p, std::size_t n) {
  count_alloc("realloc", n);
  return __libc_realloc(p, n);
}
void* aligned_alloc(std::size_t a, std::size_t n) {
  count_alloc("aligned_alloc", n);
  return __libc_memalign(a, n);
}
void* memalign(std::size_t a, std::size_t n) {
  count_alloc("memalign", n);
  return __libc_memalign(a, n);
}
int posix_memalign(void** out, std::size_t a, std::size_t n) {
  count_alloc("posix_memalign", n);
  *out = __libc_memalign(a, n);
  return *out ? 0 : 12;  // ENOMEM
}
void free(void* p) { __libc_free(p); }
}

namespace {

namespace asio = boost::asio;

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

long peak_rss_kib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

struct job {
  bool put = false;
  std::string bucket;
  std::string key;  // GET: the key; PUT: the prefix
  std::string body;  // PUT: 1 KiB
  std::uint64_t failures = 0;
  std::uint64_t next = 0;  // next PUT key number
};

// One lane: `count` requests back to back. Names are bound to variables
// before each co_await (the GCC 12 note in s3/client.hpp).
asio::awaitable<void> run_lane(floe::s3::client& c, job& j, std::uint64_t count) {
  std::string key;
  for (std::uint64_t i = 0; i < count; ++i) {
    if (j.put) {
      key = j.key;
      key += '/';
      key += std::to_string(j.next++);
      auto body = floe::http::body_source::memory(j.body);
      auto r = co_await c.async_put_object(j.bucket, key, body, asio::use_awaitable);
      if (!r) {
        if (j.failures++ == 0) std::fprintf(stderr, "bench_s3: %s\n", r.error().what().c_str());
      }
    } else {
      auto r = co_await c.async_get_object(j.bucket, j.key, asio::use_awaitable);
      if (!r || r->body.size() != 1024) {
        if (j.failures++ == 0 && !r) std::fprintf(stderr, "bench_s3: %s\n", r.error().what().c_str());
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  // A benchmark talks to loopback only: never the real instance metadata
  // service, whatever the environment says (the credentials come from
  // AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, which bench/run sets).
  ::setenv("AWS_EC2_METADATA_DISABLED", "true", 1);
  if (argc != 7 || (std::string_view(argv[1]) != "get" && std::string_view(argv[1]) != "put")) {
    std::fprintf(stderr, "usage: %s get|put ENDPOINT BUCKET KEY|PREFIX N INFLIGHT\n", argv[0]);
    return 2;
  }
  job j;
  j.put = std::string_view(argv[1]) == "put";
  j.bucket = argv[3];
  j.key = argv[4];
  j.body.assign(1024, 'x');
  for (std::size_t i = 0; i < j.body.size(); ++i) j.body[i] = static_cast<char>('a' + i % 26);
  auto const n = std::strtoull(argv[5], nullptr, 10);
  auto inflight = static_cast<unsigned>(std::strtoul(argv[6], nullptr, 10));
  if (inflight == 0) inflight = 1;

  asio::io_context io(1);
  floe::s3::client_config cfg;
  cfg.addressing.endpoint_url = argv[2];
  cfg.addressing.region = "us-east-1";
  cfg.addressing.style = floe::s3::addressing_style::path;
  cfg.http.proxy.no_proxy = "*";  // loopback: never through a proxy the environment names
  cfg.http.max_connections_per_host = inflight;
  auto made = floe::s3::client::create(io.get_executor(), std::move(cfg));
  if (!made) {
    std::fprintf(stderr, "bench_s3: %s\n", made.error().what().c_str());
    return 2;
  }
  auto& c = **made;

  // Warm up: connections open, signing key derived, buffers grown. Warm-up
  // PUTs go under PREFIX.warm/, so the harness finds exactly N measured keys.
  std::string const prefix = j.key;
  j.key = prefix + ".warm";
  if (!j.put) j.key = prefix;
  for (unsigned l = 0; l < inflight; ++l) asio::co_spawn(io, run_lane(c, j, 20), asio::detached);
  io.run();
  io.restart();
  if (j.failures) return 1;
  j.key = prefix;
  j.next = 0;

  std::uint64_t const per_lane = n / inflight;
  auto const allocs0 = g_allocs.load();
  if (char const* t = std::getenv("FLOE_BENCH_TRACE_ALLOCS"); t && *t == '1') g_trace = true;
  auto const cpu0 = cpu_seconds();
  auto const t0 = std::chrono::steady_clock::now();
  for (unsigned l = 0; l < inflight; ++l) asio::co_spawn(io, run_lane(c, j, per_lane), asio::detached);
  io.run();
  g_trace = false;
  auto const secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  auto const total = static_cast<double>(per_lane * inflight);
  std::printf("{\"op\": \"%s\", \"inflight\": %u, \"requests\": %llu, \"rps\": %.0f, \"cpu_us_per_req\": %.2f, "
              "\"allocs_per_req\": %.2f, \"peak_rss_kib\": %ld, \"failures\": %llu, \"connections\": %llu}\n",
              argv[1], inflight, static_cast<unsigned long long>(per_lane * inflight), total / secs,
              (cpu_seconds() - cpu0) * 1e6 / total, static_cast<double>(g_allocs.load() - allocs0) / total,
              peak_rss_kib(), static_cast<unsigned long long>(j.failures),
              static_cast<unsigned long long>(c.http().stats().connections_opened));
  return j.failures == 0 ? 0 : 1;
}
