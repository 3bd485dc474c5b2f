#pragma once
// What the request driver (client::perform) is told of one S3 request beyond
// the http::request (op_spec), what it keeps for that request (op_scratch),
// and the operation and resource every error of it names. Pure data.

#include <floe/config.hpp>
#include <floe/credentials/credentials.hpp>
#include <floe/error.hpp>
#include <floe/http/url.hpp>
#include <floe/s3/addressing.hpp>
#include <floe/service/driver.hpp>
#include <floe/sigv4/canonical.hpp>

#include <array>
#include <functional>
#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace floe::s3 {
class client;
}

namespace floe::s3::detail {

struct op_spec {
  std::string_view operation;  // "GetObject"
  std::string_view method;     // "GET"
  // Views of the operation's own copies (the do_* arguments), which outlive
  // every request made for it. Empty bucket: a service-level request.
  std::string_view bucket;
  std::optional<std::string_view> key;
  query_builder query;
  /// Hex SHA-256 of the body or UNSIGNED-PAYLOAD; empty: computed from a
  /// memory body, UNSIGNED-PAYLOAD for file and stream bodies.
  std::string payload_hash;
  bool conditional_write = false;
  bool if_match = false;
  bool conditional_read = false;
  /// The operation can answer 200 with an <Error> body (Complete, Copy).
  bool may_200_error = false;
  /// A read the driver may hedge (GetObject, HeadObject, the List
  /// operations): never a write.
  bool hedgeable = false;
  /// Asked before every attempt but the first (a retry or a resend of the
  /// same request); an error ends the request with it. A streamed GET
  /// refuses a new attempt once it handed bytes to its sink: the whole body
  /// would follow them again. It resumes with Range + If-Match instead.
  std::function<error()> before_retry;
  /// The call's deadline (every request of it shares one: a download's
  /// resumes, a listing's pages), with its whole budget for the error's
  /// words; none: the client's (http.retry.deadline) per request.
  std::optional<std::chrono::steady_clock::time_point> deadline;
  std::chrono::nanoseconds budget{0};
  /// Sets the deadline `budget` from now (zero: none).
  void set_deadline(std::chrono::milliseconds b) {
    if (b.count() <= 0) return;
    deadline = std::chrono::steady_clock::now() + b;
    budget = b;
  }

  std::string resource() const {
    std::string r(bucket);
    if (key) {
      r += '/';
      r += *key;
    }
    return r;
  }
};

// What client::perform keeps for one request beyond op, req and res: kept
// with the pooled exchange (exchange_pool.hpp) rather than in perform's
// coroutine frame (Asio recycles frames only up to ~1 KiB; a bigger one
// costs an allocation per request, and evicts a cached smaller one). It is
// also S3's part of the request path, as the driver's hooks: the region
// redirect, the streamed GET's refusal to start over, and Ceph's silent
// SignatureDoesNotMatch put into words (impl/driver.ipp).
struct op_scratch final : service::request_hooks {
  request_target tgt;
  http::endpoint ep;
  service::request_spec spec;
  std::vector<sigv4::query_param_view> query;
  std::array<char, 64> memory_hash{};
  std::string resource;
  error failure;  // the request's outcome: empty on success
  client* owner = nullptr;
  op_spec const* op = nullptr;

  FLOE_DECL error before_resend(service::request_spec& s, http::request& req) override;
  FLOE_DECL bool follow_redirect(service::request_spec& s, http::request& req, http::response const& res) override;
  FLOE_DECL void describe(error& e, http::response const& res, credentials::credentials const* signer) override;
};

// An argument the caller got wrong, named with the operation and resource.
inline error invalid(std::string_view operation, std::string const& resource, std::string message) {
  error e(errc::invalid_argument, std::move(message));
  e.diag.operation = std::string(operation);
  e.diag.resource = resource;
  return e;
}

// Names the operation and resource an error does not name yet. The HTTP
// layer names a failed exchange by its request target ("/bkt/k",
// "/bkt?list-type=2&..."): an S3 error names it as bucket/key instead, the
// same way in every error (a bucket name never starts with '/').
inline void add_context(error& e, op_spec const& op) {
  if (e.diag.operation.empty()) e.diag.operation = std::string(op.operation);
  if (e.diag.resource.empty() || e.diag.resource.front() == '/') e.diag.resource = op.resource();
}

inline error with_context(error e, op_spec const& op) {
  add_context(e, op);
  return e;
}

}  // namespace floe::s3::detail
