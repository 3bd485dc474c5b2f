#pragma once
// floe's error codes and the diagnostics value that travels with a failure.

#include <floe/config.hpp>

#include <boost/system/error_code.hpp>
#include <boost/system/system_error.hpp>

#include <cstdint>
#include <string>
#include <system_error>

namespace floe {

/// Errors raised by floe itself (as opposed to system or TLS errors, which
/// keep their own categories). The service's own code and message, when it
/// sent one, are in `diagnostics`.
enum class errc {
  ok = 0,
  // Problems with the input the caller gave.
  invalid_argument = 1,
  // Replies floe could not make sense of.
  malformed_reply,
  reply_too_large,
  xml_doctype_refused,
  xml_too_deep,
  // Service outcomes (see the classification table in DESIGN.md).
  precondition_failed,
  conflict,
  unknown_outcome,
  unsupported,
  stale_credentials,
  throttled,
  transient,
  clock_skew,
  not_found,
  denied,
  service_error,  // any other error reply
  // Client-side conditions.
  retry_quota_exhausted,
  attempts_exhausted,
  timeout,
  credentials_unavailable,
  body_not_replayable,
  // Appended later; the values above keep their numbers.
  checksum_mismatch,       // a digest the service reported does not match the bytes (SQS MD5OfMessageBody)
  invalid_receipt_handle,  // SQS: the receipt handle no longer holds the message
};

FLOE_DECL boost::system::error_category const& floe_category() noexcept;

inline boost::system::error_code make_error_code(errc e) noexcept {
  return {static_cast<int>(e), floe_category()};
}

/// What is known about a failed operation beyond its error code.
/// Never holds a secret, a session token or a signature.
struct diagnostics {
  unsigned http_status = 0;   // 0 when no reply arrived
  std::string operation;      // e.g. "GetObject"
  std::string code;           // the service's error code, e.g. "NoSuchKey"
  std::string message;        // the service's message, or floe's reason
  std::string request_id;
  std::string host_id;
  std::string resource;       // bucket/key or URL path
  unsigned attempt = 0;       // 1-based attempt that produced this failure: the attempts made

  /// One line for logs and the CLI: "GetObject b/k: 404 NoSuchKey: ... (request id ...)",
  /// with "after N attempts" in the parenthesis when more than one was made:
  /// "ListObjectsV2 b: connecting to 127.0.0.1:1: connection refused (after 3 attempts)".
  FLOE_DECL std::string to_string() const;
};

/// A failure: an error code and what is known about it.
struct error {
  boost::system::error_code code;
  diagnostics diag;

  error() = default;
  error(boost::system::error_code ec) : code(ec) {}  // NOLINT: implicit on purpose
  error(errc e) : code(make_error_code(e)) {}          // NOLINT
  error(boost::system::error_code ec, diagnostics d) : code(ec), diag(std::move(d)) {}
  error(errc e, std::string message) : code(make_error_code(e)) { diag.message = std::move(message); }

  /// "code message: diagnostics".
  FLOE_DECL std::string what() const;

  /// Back to no error; the strings keep their memory (an error slot reused
  /// per request costs no allocation or free).
  void clear() noexcept {
    code.clear();
    diag.http_status = 0;
    diag.operation.clear();
    diag.code.clear();
    diag.message.clear();
    diag.request_id.clear();
    diag.host_id.clear();
    diag.resource.clear();
    diag.attempt = 0;
  }
};

/// Thrown by result<T>::value() when the caller prefers exceptions.
class exception : public boost::system::system_error {
 public:
  explicit exception(error e) : boost::system::system_error(e.code, e.what()), error_(std::move(e)) {}
  error const& get() const noexcept { return error_; }

 private:
  error error_;
};

}  // namespace floe

namespace boost::system {
template <>
struct is_error_code_enum<floe::errc> : std::true_type {};
}  // namespace boost::system

#if defined(FLOE_HEADER_ONLY)
#include <floe/impl/error.ipp>
#endif
