#pragma once
// The classifier: what a service reply (or its absence) means for the
// caller, as a floe::errors::kind. Pure: no I/O, no clock (the clock skew
// is a fact the caller measured). Implements the table in docs/design.md.
//
// Precedence, first match wins (the `reason` of the result names the rule):
//   1. no reply (lost, cut off): conditional write -> unknown_outcome, else transient
//   2. 2xx without an error code -> success; 2xx WITH an error code (a 200
//      whose body is <Error>, e.g. CompleteMultipartUpload) is treated as a
//      500 carrying that code; 304 -> success on a conditional read
//   3. by status alone: 301/302/307/308 -> redirect, 412 ->
//      precondition_failed, 501 -> unsupported
//   4. PermanentRedirect, TemporaryRedirect, or a 400 with
//      x-amz-bucket-region (bodiless or AuthorizationHeaderMalformed) -> redirect
//   5. the code NotImplemented -> unsupported, PreconditionFailed -> precondition_failed
//   6. any other 5xx on a conditional write -> unknown_outcome (Ceph 16.2
//      answers a lost race with 500 UnknownError; even a 503 may have landed)
//   7. ConditionalRequestConflict, ConcurrentModification, or any 409 on a
//      conditional request -> conflict
//   8. throttling codes, 429, 499 -> throttled
//   9. RequestTimeTooSkewed, RequestExpired, RequestInTheFuture -> clock_skew;
//      InvalidSignatureException / SignatureDoesNotMatch with skew -> clock_skew
//  10. 404 or a not-found code -> not_found, except NoSuchKey on an If-Match
//      write -> precondition_failed; SQS ReceiptHandleIsInvalid (and its
//      deprecated form InvalidIdFormat) and MessageNotInflight -> invalid_receipt
//  11. stale-credential codes -> stale_credentials (never for a credential
//      fetch: those fall through to denied / client_error)
//  12. 401/403 without a code, or AccessDenied / AccessDeniedException (the
//      JSON protocols' name; under any status): skew beyond tolerance ->
//      clock_skew; refreshable credentials (and not a credential fetch) ->
//      stale_credentials; else denied. Any other 401/403 -> denied
//  13. transient codes (InternalError, RequestTimeout, ...) or other 5xx -> transient
//  14. any other status -> client_error

#include <floe/config.hpp>
#include <floe/errors/kind.hpp>

#include <chrono>
#include <optional>
#include <string_view>

namespace floe::errors {

/// Everything the classifier looks at. All views only need to live for the
/// call.
struct reply_facts {
  unsigned status = 0;              // HTTP status; 0 when no reply arrived
  std::string_view code{};          // the body's error code; empty when bodiless
  std::string_view method{};        // "GET", "PUT", "HEAD", ... (informational)
  /// If-Match or If-None-Match on a PUT / POST / DELETE / CompleteMultipartUpload.
  bool is_conditional_write = false;
  /// The conditional write carried If-Match (implies is_conditional_write):
  /// a 404 NoSuchKey then means the expected object is gone.
  bool if_match = false;
  /// If-Match / If-None-Match / If-(Un)Modified-Since on a GET or HEAD.
  bool is_conditional_read = false;
  /// The credentials that signed the request come from a source that can be
  /// refreshed (web identity, container, IMDS, SSO): an AccessDenied or a
  /// bodiless 403 may then mean they went stale.
  bool credentials_refreshable = false;
  /// The request was itself a credential fetch (STS, IMDS, container
  /// endpoint): its failure is never stale_credentials.
  bool is_credential_fetch = false;
  /// No reply, or one cut off before its end (status is then ignored).
  bool reply_lost = false;
  /// The reply's Date minus the local clock, when the reply had a Date.
  std::optional<std::chrono::seconds> clock_skew;
  /// How far apart the clocks may be before a 403 is blamed on the clock.
  std::chrono::seconds skew_tolerance{300};
  /// The reply carried x-amz-bucket-region (or its error body a <Region>).
  bool has_bucket_region = false;

  bool conditional_write() const noexcept { return is_conditional_write || if_match; }
  bool skewed() const noexcept {
    if (!clock_skew) return false;
    auto s = *clock_skew;
    return s > skew_tolerance || s < -skew_tolerance;
  }
};

/// A kind and the rule that gave it (a static string, for diagnostics).
struct classification {
  errors::kind outcome = errors::kind::success;
  std::string_view reason{};
};

/// Classifies a reply. Never throws.
FLOE_DECL classification classify(reply_facts const& f) noexcept;

/// The code lists the classifier uses, exposed for tests and the retry layer.
FLOE_DECL bool is_throttling_code(std::string_view code) noexcept;
FLOE_DECL bool is_stale_credentials_code(std::string_view code) noexcept;
FLOE_DECL bool is_clock_skew_code(std::string_view code) noexcept;
FLOE_DECL bool is_transient_code(std::string_view code) noexcept;
FLOE_DECL bool is_not_found_code(std::string_view code) noexcept;
FLOE_DECL bool is_invalid_receipt_code(std::string_view code) noexcept;
FLOE_DECL bool is_access_denied_code(std::string_view code) noexcept;

}  // namespace floe::errors

#if defined(FLOE_HEADER_ONLY)
#include <floe/errors/impl/classify.ipp>
#endif
