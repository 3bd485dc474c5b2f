#pragma once
// http::request and http::response: what one exchange sends and reads.
// Signing, classifying a reply and retrying are the request driver's
// (service/driver.hpp), which fills a request and reads a response.

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

struct request {
  std::string method = "GET";       // as sent; upper case
  std::string target = "/";         // origin-form path?query, already encoded
  fields headers;                   // Host and Content-Length are added by the client
  body_source body;
  body_sink sink;                   // where a 2xx reply's body goes
  retry::request_traits traits;     // idempotent / conditional write (replayable comes from body)
  std::string operation;            // for diagnostics, e.g. "GetObject"
  /// A hedge: a second copy of a slow read sent by the request driver
  /// (service/driver.hpp); the exchange observer is told (exchange_view).
  bool hedge = false;
  /// The longest time without a byte moving either way in one attempt;
  /// zero: the client's idle_timeout. A long poll (SQS's WaitTimeSeconds)
  /// sets one longer than its wait.
  std::chrono::milliseconds idle_timeout{0};
  /// Optional: told the body bytes written so far in this attempt, as they
  /// reach the socket (a retry starts again from its first chunk).
  std::function<void(std::uint64_t)> on_body_sent;
  /// Optional: called once an attempt has read a final reply's head (its
  /// status and headers are in the response), before its body is read.
  /// Returns whether the reply is still wanted: false ends the attempt there,
  /// cancelled, with no reply (its connection is closed). The request
  /// driver's hedged reads commit to the first head; the other attempt's
  /// head, if it comes, is refused (driver_race.ipp).
  std::function<bool()> on_reply_head;

  /// Empties everything, keeping the memory of the strings and fields.
  void clear() {
    method.assign("GET");
    target.assign("/");
    headers.clear();
    body = {};
    sink = {};
    traits = {};
    operation.clear();
    hedge = false;
    idle_timeout = std::chrono::milliseconds(0);
    on_body_sent = nullptr;
    on_reply_head = nullptr;
  }
};

struct response {
  unsigned status = 0;
  fields headers;
  std::string body;              // a memory-sink body, or any non-2xx reply's body
  std::uint64_t body_bytes = 0;  // bytes delivered (to `body` or the sink)
  bool keep_alive = false;
  // The last three are the request driver's (an exchange alone leaves them).
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

}  // namespace floe::http
