#pragma once
// Settings of an http::client. Zero durations mean "none".

#include <floe/http/address_book.hpp>
#include <floe/http/fields.hpp>
#include <floe/http/proxy.hpp>
#include <floe/http/tls.hpp>
#include <floe/http/url.hpp>
#include <floe/retry/policy.hpp>

#include <boost/system/error_code.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace floe::http {

/// What an exchange observer is shown of one attempt, after it ended: the
/// request line and headers as sent (Authorization, X-Amz-Security-Token and
/// any presigned query included: redact before showing them anywhere) and
/// the reply's status and headers. Never a body. Every view is valid only
/// during the call.
struct exchange_view {
  std::string_view operation;                 // request::operation, e.g. "PutObject"
  std::string_view method;
  endpoint const* ep = nullptr;               // where it was sent
  std::string_view target;                    // path?query, encoded as sent
  fields const* request_headers = nullptr;    // as sent (after signing)
  unsigned status = 0;                        // 0: no (complete) reply; see `ec`
  fields const* reply_headers = nullptr;      // null when status is 0
  boost::system::error_code ec;               // why there was no reply
  unsigned attempt = 1;                       // 1-based: the request driver's attempt (1 for a lone exchange)
  bool resend = false;                        // a resend after a reused connection was found closed
  bool reused_connection = false;
  std::chrono::steady_clock::duration elapsed{};  // from taking a connection to the end of the reply
  /// The address the connection went to, "127.0.0.3:443" ("[::1]:443"):
  /// the proxy's when one was used. Empty when no connection was made.
  std::string_view peer;
  /// From the request's first byte written to the reply's first byte read;
  /// zero when no reply byte came.
  std::chrono::steady_clock::duration ttfb{};
  /// The attempt was a hedge (a second copy of a slow request, sent by the
  /// request driver), and it won (its reply was the one used).
  bool hedge = false;
  bool hedge_won = false;
};

/// Called after every exchange (each attempt of a driver, and each resend) on the
/// client's executor. Must not throw. Empty: nothing is measured or called.
using exchange_observer = std::function<void(exchange_view const&)>;

struct client_config {
  /// Resolving, connecting, the proxy's CONNECT and the TLS handshake together.
  std::chrono::milliseconds connect_timeout{10'000};
  /// Per attempt: the longest time without a byte moving either way. A body
  /// that keeps moving never times out; a stalled one does. The reply head
  /// must also arrive whole within it of the request being sent, however
  /// its bytes trickle (a server sending a byte a second cannot hold a
  /// request for hours). The CLI's --read-timeout.
  std::chrono::milliseconds idle_timeout{30'000};
  /// The low-speed limit for bodies, as curl's --speed-limit and
  /// --speed-time: a request or reply body moving fewer than
  /// low_speed_limit bytes per second on average over a window of
  /// low_speed_time (windows back to back) fails the attempt as timed out;
  /// a streamed download then resumes where it was. 0: no limit. A limit
  /// with low_speed_time 0 takes windows of 30 s.
  std::uint64_t low_speed_limit = 0;
  std::chrono::milliseconds low_speed_time{0};
  /// How long Expect: 100-continue waits for the server before sending the body.
  std::chrono::milliseconds continue_timeout{1'000};
  /// Idle pooled connections older than this are closed instead of reused.
  std::chrono::milliseconds pool_idle_timeout{15'000};
  /// Connections per (scheme, host, port); requests beyond wait their turn.
  std::size_t max_connections_per_host = 64;
  /// Limits on every reply: header bytes, bodies read to memory (2xx into
  /// response::body), and error bodies. A reply over one fails with
  /// errc::reply_too_large naming the limit, is read no further and is not
  /// retried.
  std::uint32_t header_limit = 64 * 1024;
  std::uint64_t body_limit = 64ull * 1024 * 1024;
  std::uint64_t error_body_limit = 1024 * 1024;
  /// Bytes per read or write of a streamed body.
  std::size_t io_chunk = 64 * 1024;
  /// Resends of an idempotent request that met a reused connection the server
  /// had closed (outside the attempt count and quota).
  unsigned max_stale_resends = 4;

  tls_config tls;
  /// Empty: no proxy. Never read from the environment here: a session
  /// (session_params::proxy_from_env) fills it through its lookup.
  proxy_config proxy;
  /// The standard retry mode of the request drivers sending through this
  /// client: the quota's size and costs (client::quota()), and the attempts
  /// and back-off a driver made from it uses. The client itself never retries.
  retry::standard_params retry;
  /// Uniform draws in [0, 1) for the back-off jitter of the request drivers
  /// sending through this client (unless a driver has its own); empty: a
  /// PRNG private to each driver. Tests pass a fixed sequence.
  std::function<double()> random;
  /// Told of every attempt (see exchange_view): request logs, tracing.
  exchange_observer observer;
  /// Host names connected to at a fixed address instead of being resolved
  /// (as curl's --resolve): {"bucket.localhost", "127.0.0.1"}. Only the
  /// connection goes there: the Host header, the signature, TLS (SNI and
  /// the certificate's name), NO_PROXY and the pool keep the name. For local
  /// stores whose virtual-hosted names are not in DNS, and for tests.
  ///
  /// The address may be a comma list, "127.0.0.1,127.0.0.2" (spaces
  /// allowed), and several entries may name one host: the name then has
  /// every address listed, as a name with several DNS records (see
  /// `addresses`). Each must be an IP literal (IPv6 without brackets);
  /// anything else fails the connection naming the entry.
  std::vector<std::pair<std::string, std::string>> resolve_overrides;
  /// Every address of a store: how long a name's addresses are used before
  /// it is resolved again, and how long an address that refused, reset or
  /// stalled is left out of new connections (address_book.hpp). New
  /// connections go to the address with the fewest open connections.
  address_params addresses;
};

}  // namespace floe::http
