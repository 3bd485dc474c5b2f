#pragma once
// http::request and http::response, and the two hooks through which the
// service layer drives a request: signing (per attempt) and classification.

#include <floe/config.hpp>
#include <floe/errors/kind.hpp>
#include <floe/http/body.hpp>
#include <floe/http/fields.hpp>
#include <floe/retry/policy.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace floe::http {

struct request;
struct response;

/// What the signing hook is told before each attempt.
struct attempt_info {
  unsigned attempt = 1;                 // 1-based, counting retries (not stale-connection resends)
  std::chrono::seconds clock_skew{0};   // server minus local clock, learnt from Date
};

/// Called with the request right before each attempt is sent: set or replace
/// the date and Authorization headers here. An error ends the operation.
using sign_hook = std::function<error(request&, attempt_info const&)>;

/// Classifies a complete reply (the service layer plugs in errors::classify).
using classify_hook = std::function<errors::kind(request const&, response const&)>;

struct request {
  std::string method = "GET";       // as sent; upper case
  std::string target = "/";         // origin-form path?query, already encoded
  fields headers;                   // Host and Content-Length are added by the client
  body_source body;
  body_sink sink;                   // where a 2xx reply's body goes
  retry::request_traits traits;     // idempotent / conditional write (replayable comes from body)
  sign_hook sign;                   // optional
  classify_hook classify;           // optional: default_classify when empty
  std::string operation;            // for diagnostics, e.g. "GetObject"
  /// The longest time without a byte moving either way in one attempt;
  /// zero: the client's idle_timeout. A long poll (SQS's WaitTimeSeconds)
  /// sets one longer than its wait.
  std::chrono::milliseconds idle_timeout{0};
  /// Optional: told the body bytes written so far in this attempt, as they
  /// reach the socket (a retry starts again from its first chunk).
  std::function<void(std::uint64_t)> on_body_sent;

  /// Empties everything, keeping the memory of the strings and fields.
  void clear() {
    method.assign("GET");
    target.assign("/");
    headers.clear();
    body = {};
    sink = {};
    traits = {};
    sign = nullptr;
    classify = nullptr;
    operation.clear();
    idle_timeout = std::chrono::milliseconds(0);
    on_body_sent = nullptr;
  }
};

struct response {
  unsigned status = 0;
  fields headers;
  std::string body;              // a memory-sink body, or any non-2xx reply's body
  std::uint64_t body_bytes = 0;  // bytes delivered (to `body` or the sink)
  bool keep_alive = false;
  unsigned attempts = 0;         // attempts made (retries + 1)
  errors::kind kind = errors::kind::success;  // what classification said of this reply
  /// errc::ok when this reply is the answer; otherwise why it was not
  /// retried further (attempts_exhausted, retry_quota_exhausted,
  /// unknown_outcome, body_not_replayable).
  errc retry_stop = errc::ok;

  void clear() noexcept {
    status = 0;
    headers.clear();
    body.clear();
    body_bytes = 0;
    keep_alive = false;
    attempts = 0;
    kind = errors::kind::success;
    retry_stop = errc::ok;
  }
};

/// The classification used when a request has no classify hook: by status
/// only (2xx/304 success; 429 and 503 throttled; 501 unsupported; other 5xx
/// transient, or unknown_outcome for a conditional write; 3xx redirect; 403
/// denied; 404 not_found; 409 conflict; 412 precondition_failed; other 4xx
/// client_error), plus "RequestTimeTooSkewed"/"RequestExpired" and "SlowDown"
/// in an error body.
FLOE_DECL errors::kind default_classify(request const& req, response const& res) noexcept;

}  // namespace floe::http

#if defined(FLOE_HEADER_ONLY)
#include <floe/http/impl/message.ipp>
#endif
