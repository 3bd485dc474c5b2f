#pragma once
// The kinds of outcome a service reply is classified into. The table that
// maps (status, code, context) to a kind is in docs/design.md and is implemented
// by floe::errors::classify (errors/classify.hpp).

#include <floe/error.hpp>

#include <string_view>

namespace floe::errors {

enum class kind {
  success,               // 2xx (or 304 on a conditional read)
  precondition_failed,   // 412; 404 NoSuchKey on an If-Match write
  conflict,              // 409 on a conditional request: nothing written
  unknown_outcome,       // conditional write: lost/cut reply or 5xx
  unsupported,           // 501 NotImplemented
  stale_credentials,     // expired / revoked / invalid credentials
  throttled,             // SlowDown, 429, Throttling...
  transient,             // 5xx, RequestTimeout, connection lost before a reply
  clock_skew,            // RequestTimeTooSkewed, RequestExpired, ...
  not_found,             // NoSuchKey, NoSuchBucket, bodiless HEAD 404
  denied,                // any other 403
  client_error,          // any other 4xx: the request itself was wrong
  redirect,              // 301/307 or a region redirect (x-amz-bucket-region)
  invalid_receipt,       // SQS ReceiptHandleIsInvalid, MessageNotInflight: the hold on the message is gone
};

inline constexpr std::string_view to_string(kind k) noexcept {
  switch (k) {
    case kind::success: return "success";
    case kind::precondition_failed: return "precondition_failed";
    case kind::conflict: return "conflict";
    case kind::unknown_outcome: return "unknown_outcome";
    case kind::unsupported: return "unsupported";
    case kind::stale_credentials: return "stale_credentials";
    case kind::throttled: return "throttled";
    case kind::transient: return "transient";
    case kind::clock_skew: return "clock_skew";
    case kind::not_found: return "not_found";
    case kind::denied: return "denied";
    case kind::client_error: return "client_error";
    case kind::redirect: return "redirect";
    case kind::invalid_receipt: return "invalid_receipt";
  }
  return "?";
}

/// The floe::errc a kind is reported as.
inline constexpr errc to_errc(kind k) noexcept {
  switch (k) {
    case kind::success: return errc::ok;
    case kind::precondition_failed: return errc::precondition_failed;
    case kind::conflict: return errc::conflict;
    case kind::unknown_outcome: return errc::unknown_outcome;
    case kind::unsupported: return errc::unsupported;
    case kind::stale_credentials: return errc::stale_credentials;
    case kind::throttled: return errc::throttled;
    case kind::transient: return errc::transient;
    case kind::clock_skew: return errc::clock_skew;
    case kind::not_found: return errc::not_found;
    case kind::denied: return errc::denied;
    case kind::client_error: return errc::service_error;
    case kind::redirect: return errc::service_error;
    case kind::invalid_receipt: return errc::invalid_receipt_handle;
  }
  return errc::service_error;
}

/// Whether the retry layer may try again after this kind (for an idempotent
/// request, within the quota).
inline constexpr bool is_retryable(kind k) noexcept {
  return k == kind::throttled || k == kind::transient || k == kind::clock_skew;
}

}  // namespace floe::errors
