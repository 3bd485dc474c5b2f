#pragma once
#include <floe/errors/classify.hpp>

#include <initializer_list>

namespace floe::errors {

namespace detail {

inline bool one_of(std::string_view code, std::initializer_list<std::string_view> set) noexcept {
  for (auto s : set) {
    if (code == s) return true;
  }
  return false;
}

inline classification make(kind k, std::string_view why) noexcept { return {k, why}; }

}  // namespace detail

FLOE_DECL bool is_throttling_code(std::string_view c) noexcept {
  // Prefix families: Throttling, ThrottlingException; TooManyRequests,
  // TooManyRequestsException; SlowDown, SlowDownRead, SlowDownWrite (MinIO).
  if (c.starts_with("Throttling") || c.starts_with("TooManyRequests") || c.starts_with("SlowDown")) return true;
  return detail::one_of(c, {"ThrottledException", "RequestThrottled", "RequestThrottledException",
                            "RequestLimitExceeded", "BandwidthLimitExceeded", "EC2ThrottledException",
                            "ProvisionedThroughputExceededException", "PriorRequestNotComplete",
                            "TransactionInProgressException", "KmsThrottled"});
}

FLOE_DECL bool is_stale_credentials_code(std::string_view c) noexcept {
  return detail::one_of(c, {"ExpiredToken", "ExpiredTokenException", "InvalidToken", "TokenRefreshRequired",
                            "InvalidAccessKeyId", "InvalidClientTokenId", "UnrecognizedClientException"});
}

FLOE_DECL bool is_clock_skew_code(std::string_view c) noexcept {
  return detail::one_of(c, {"RequestTimeTooSkewed", "RequestExpired", "RequestInTheFuture"});
}

FLOE_DECL bool is_transient_code(std::string_view c) noexcept {
  return detail::one_of(c, {"InternalError", "InternalFailure", "InternalServerError", "ServiceUnavailable",
                            "ServiceUnavailableException", "RequestTimeout", "RequestTimeoutException",
                            "IDPCommunicationError", "UnknownError"});
}

FLOE_DECL bool is_not_found_code(std::string_view c) noexcept {
  return detail::one_of(c, {"NoSuchKey", "NoSuchBucket", "NoSuchVersion", "NoSuchUpload", "NotFound",
                            "NoSuchEntity", "QueueDoesNotExist", "AWS.SimpleQueueService.NonExistentQueue"});
}

FLOE_DECL bool is_invalid_receipt_code(std::string_view c) noexcept {
  return detail::one_of(c, {"ReceiptHandleIsInvalid", "InvalidIdFormat", "MessageNotInflight"});
}

FLOE_DECL bool is_access_denied_code(std::string_view c) noexcept {
  return c == "AccessDenied" || c == "AccessDeniedException";
}

FLOE_DECL classification classify(reply_facts const& f) noexcept {
  using detail::make;
  bool const cond_write = f.conditional_write();

  // 1. No reply, or one cut off: a conditional write may or may not have landed.
  if (f.reply_lost || f.status == 0) {
    return cond_write ? make(kind::unknown_outcome, "reply lost on a conditional write")
                      : make(kind::transient, "connection lost before a complete reply");
  }

  std::string_view const code = f.code;
  unsigned status = f.status;

  // 2. Success, and the 200 that carries an <Error>.
  if (status >= 200 && status < 300) {
    if (code.empty()) return make(kind::success, "2xx");
    status = 500;  // an error inside a 200: the server failed while answering
  }
  if (status < 200) return make(kind::transient, "unexpected 1xx final status");
  if (status == 304) {
    return f.is_conditional_read ? make(kind::success, "304 not modified on a conditional read")
                                 : make(kind::client_error, "304 to an unconditional request");
  }

  // 3. What the status alone settles: redirects, 412, 501.
  if (status == 301 || status == 302 || status == 307 || status == 308) return make(kind::redirect, "3xx redirect");
  if (status == 412) return make(kind::precondition_failed, "412 PreconditionFailed");
  if (status == 501) return make(kind::unsupported, "501 NotImplemented");

  // 4. Redirect codes, including the region redirect S3 signals on a bodiless 400.
  if (code == "PermanentRedirect" || code == "TemporaryRedirect") return make(kind::redirect, "redirect code");
  if (status == 400 && f.has_bucket_region && (code.empty() || code == "AuthorizationHeaderMalformed")) {
    return make(kind::redirect, "400 with x-amz-bucket-region: wrong region");
  }

  // 5. The same outcomes named by the code under another status.
  if (code == "NotImplemented") return make(kind::unsupported, "NotImplemented code");
  if (code == "PreconditionFailed") return make(kind::precondition_failed, "PreconditionFailed code");

  // 6. A server error on a conditional write says nothing about whether it landed.
  if (cond_write && status >= 500 && status < 600) {
    return make(kind::unknown_outcome, "5xx on a conditional write");
  }

  // 7. Conflicts: the store says nothing was written.
  if (code == "ConditionalRequestConflict") return make(kind::conflict, "ConditionalRequestConflict");
  if (code == "ConcurrentModification") return make(kind::conflict, "ConcurrentModification");
  if (status == 409 && (cond_write || f.is_conditional_read)) return make(kind::conflict, "409 on a conditional request");

  // 8. Throttling.
  if (is_throttling_code(code)) return make(kind::throttled, "throttling code");
  if (status == 429 || status == 499) return make(kind::throttled, "429/499");

  // 9. Clock skew.
  if (is_clock_skew_code(code)) return make(kind::clock_skew, "clock skew code");
  if ((code == "InvalidSignatureException" || code == "SignatureDoesNotMatch") && f.skewed()) {
    return make(kind::clock_skew, "signature rejected and the server's Date is far off");
  }

  // 10. Not found; a vanished object under If-Match is a failed precondition.
  // A receipt handle that no longer holds its message comes first: SQS may
  // send it under 404, and it is not the queue that is missing.
  if (is_invalid_receipt_code(code)) return make(kind::invalid_receipt, "receipt handle no longer valid");
  if (code == "NoSuchKey" && f.if_match) {
    return make(kind::precondition_failed, "404 NoSuchKey on an If-Match write");
  }
  if (status == 404 || is_not_found_code(code)) return make(kind::not_found, "404 / not-found code");

  // 11. Credentials that went stale (a credential fetch never invalidates
  // the cache it feeds: its failures fall through).
  bool const may_be_stale = !f.is_credential_fetch;
  if (is_stale_credentials_code(code) && may_be_stale) {
    return make(kind::stale_credentials, "stale credentials code");
  }

  // 12. Refusals. A bodiless 403 (every HEAD) or an AccessDenied is stale
  // credentials when they can be refreshed, unless the clocks disagree.
  if (status == 401 || status == 403 || is_access_denied_code(code)) {
    if (code.empty() || is_access_denied_code(code)) {
      if (f.skewed()) return make(kind::clock_skew, "403 and the server's Date is far off");
      if (f.credentials_refreshable && may_be_stale) {
        return make(kind::stale_credentials, "403 with refreshable credentials");
      }
    }
    return make(kind::denied, f.is_credential_fetch ? "credential fetch refused" : "403");
  }

  // 13-14.
  if (is_transient_code(code)) return make(kind::transient, "transient code");
  if (status >= 500 && status < 600) return make(kind::transient, "5xx");
  return make(kind::client_error, status >= 400 && status < 500 ? "other 4xx" : "unexpected status");
}

}  // namespace floe::errors
