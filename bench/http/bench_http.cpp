// floe's HTTP client alone: GET of one small object, N times, sequentially on
// one connection and with K requests in flight on one thread. Prints one JSON
// line: requests/s, client CPU µs per request (getrusage), heap allocations
// per request (counted by the replaced malloc family below).
//
//   bench_http URL N INFLIGHT     e.g. bench_http http://127.0.0.1:8080/bench/1k 20000 64
#include <floe/http/client.hpp>

#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>

#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

// Every heap allocation of the process is counted, whoever makes it
// (operator new, Asio's aligned frames, OpenSSL): the malloc family is
// replaced by counting wrappers around glibc's own entry points.
extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
void* __libc_memalign(std::size_t, std::size_t);
void __libc_free(void*);
}

namespace {
std::atomic<std::uint64_t> g_allocs{0};
}

extern "C" {
void* malloc(std::size_t n) {
  g_allocs.fetch_add(1, std::memory_order_relaxed);
  return __libc_malloc(n);
}
void* calloc(std::size_t n, std::size_t m) {
  g_allocs.fetch_add(1, std::memory_order_relaxed);
  return __libc_calloc(n, m);
}
void* realloc(void* p, std::size_t n) {
  g_allocs.fetch_add(1, std::memory_order_relaxed);
  return __libc_realloc(p, n);
}
void* aligned_alloc(std::size_t a, std::size_t n) {
  g_allocs.fetch_add(1, std::memory_order_relaxed);
  return __libc_memalign(a, n);
}
void* memalign(std::size_t a, std::size_t n) {
  g_allocs.fetch_add(1, std::memory_order_relaxed);
  return __libc_memalign(a, n);
}
int posix_memalign(void** out, std::size_t a, std::size_t n) {
  g_allocs.fetch_add(1, std::memory_order_relaxed);
  *out = __libc_memalign(a, n);
  return *out ? 0 : 12;  // ENOMEM
}
void free(void* p) { __libc_free(p); }
}

namespace {

namespace asio = boost::asio;
using floe::http::client;
using floe::http::request;
using floe::http::response;

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

struct lane {
  request req;
  response res;
};

// One lane: sends `count` GETs back to back, reusing its request and response.
asio::awaitable<void> run_lane(client& c, floe::http::endpoint const& ep, lane& l, std::uint64_t count,
                               std::uint64_t& failures) {
  for (std::uint64_t i = 0; i < count; ++i) {
    auto e = co_await c.async_send(ep, l.req, l.res);
    if (e.code || l.res.status != 200) ++failures;
  }
}

struct figures {
  double rps = 0, cpu_us = 0, allocs = 0;
  std::uint64_t failures = 0, connections = 0;
};

figures measure(floe::http::url const& u, std::uint64_t n, unsigned inflight) {
  asio::io_context io(1);
  floe::http::client_config cfg;
  cfg.max_connections_per_host = inflight;
  client c(io.get_executor(), cfg);
  std::vector<lane> lanes(inflight);
  for (auto& l : lanes) {
    l.req.method = "GET";
    l.req.target = u.target;
    l.req.headers.set("User-Agent", "floe-bench");
  }
  std::uint64_t failures = 0;
  // Warm up: connections open, buffers grown, coroutine frames recycled.
  for (auto& l : lanes) asio::co_spawn(io, run_lane(c, u.ep, l, 50, failures), asio::detached);
  io.run();
  io.restart();
  failures = 0;
  std::uint64_t const per_lane = n / inflight;
  auto const allocs0 = g_allocs.load();
  auto const cpu0 = cpu_seconds();
  auto const t0 = std::chrono::steady_clock::now();
  for (auto& l : lanes) asio::co_spawn(io, run_lane(c, u.ep, l, per_lane, failures), asio::detached);
  io.run();
  auto const secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  auto const total = static_cast<double>(per_lane * inflight);
  figures f;
  f.rps = total / secs;
  f.cpu_us = (cpu_seconds() - cpu0) * 1e6 / total;
  f.allocs = static_cast<double>(g_allocs.load() - allocs0) / total;
  f.failures = failures;
  f.connections = c.stats().connections_opened;
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s URL N INFLIGHT\n", argv[0]);
    return 2;
  }
  auto u = floe::http::parse_url(argv[1]);
  if (!u) {
    std::fprintf(stderr, "%s\n", u.error().what().c_str());
    return 2;
  }
  auto const n = std::strtoull(argv[2], nullptr, 10);
  auto const inflight = static_cast<unsigned>(std::strtoul(argv[3], nullptr, 10));
  auto const f = measure(*u, n, inflight ? inflight : 1);
  std::printf("{\"inflight\": %u, \"requests\": %llu, \"rps\": %.0f, \"cpu_us_per_req\": %.2f, "
              "\"allocs_per_req\": %.2f, \"failures\": %llu, \"connections\": %llu}\n",
              inflight, static_cast<unsigned long long>(n), f.rps, f.cpu_us, f.allocs,
              static_cast<unsigned long long>(f.failures), static_cast<unsigned long long>(f.connections));
  return f.failures == 0 ? 0 : 1;
}
