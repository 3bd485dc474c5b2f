#pragma once
// Settings of an http::client. Zero durations mean "none".

#include <floe/http/proxy.hpp>
#include <floe/http/tls.hpp>
#include <floe/retry/policy.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>

namespace floe::http {

struct client_config {
  /// Resolving, connecting, the proxy's CONNECT and the TLS handshake together.
  std::chrono::milliseconds connect_timeout{10'000};
  /// Per attempt: the longest time without a byte moving either way. A body
  /// that keeps moving never times out; a stalled one does.
  std::chrono::milliseconds idle_timeout{30'000};
  /// How long Expect: 100-continue waits for the server before sending the body.
  std::chrono::milliseconds continue_timeout{1'000};
  /// Idle pooled connections older than this are closed instead of reused.
  std::chrono::milliseconds pool_idle_timeout{15'000};
  /// Connections per (scheme, host, port); requests beyond wait their turn.
  std::size_t max_connections_per_host = 64;
  /// Limits on every reply: header bytes, bodies read to memory (2xx into
  /// response::body), and error bodies.
  std::uint32_t header_limit = 64 * 1024;
  std::uint64_t body_limit = 64ull * 1024 * 1024;
  std::uint64_t error_body_limit = 1024 * 1024;
  /// Bytes per read or write of a streamed body.
  std::size_t io_chunk = 64 * 1024;
  /// Resends of an idempotent request that met a reused connection the server
  /// had closed (outside the attempt count and quota).
  unsigned max_stale_resends = 4;

  tls_config tls;
  proxy_config proxy = proxy_config::from_env();
  retry::standard_params retry;
  /// Uniform draws in [0, 1) for the back-off jitter; empty: a PRNG seeded
  /// from std::random_device. Tests pass a fixed sequence.
  std::function<double()> random;
};

}  // namespace floe::http
