#pragma once
// floe's SigV4 signer: header signing (Authorization) and presigned URLs.
//
// Pure: no sockets, no clock (the signing time is a parameter), no logging.
// Results never leave a secret anywhere but in the signature itself; the
// session token is copied into the headers/query it belongs in.
//
// Usage (an S3 GET):
//
//   floe::sigv4::signer s;                  // one per client / strand
//   floe::sigv4::header_signature sig;      // reuse: its buffers keep their capacity
//   std::string path = "/" + floe::sigv4::uri_encode(key, false);   // the wire path
//   std::array<floe::sigv4::header_view, 1> h{{{"host", "b.s3.eu-west-1.amazonaws.com"}}};
//   floe::sigv4::request_view req{"GET", path, {}, h, floe::sigv4::empty_payload_sha256};
//   floe::sigv4::credentials_view creds{akid, secret, token};
//   auto r = s.sign_headers(req, creds, floe::sigv4::signing_params::s3("eu-west-1"),
//                           std::chrono::system_clock::now(), sig);
//   if (r) sig.for_each_header([&](std::string_view n, std::string_view v) { msg.set(n, v); });
//
// The query is given as already-encoded (name, value) pairs in wire order
// (query_param_view); the signer sorts a copy of the views for the canonical
// query and never re-encodes them. Presigning returns only the auth
// parameters to append after the request's own query. For aws-chunked
// uploads (payload hash streaming_payload) see chunk_signer.hpp.
//
// Allocation: once `sig` and the signer have seen a request of similar
// shape, signing with a cached signing key allocates nothing (tested in
// tests/unit/sigv4/test_allocations.cpp, measured in bench/sigv4).
//
// Thread safety: a signer (with its signing-key cache and scratch buffers) is
// not thread-safe; use one per client or strand. Output objects are plain
// values owned by the caller.

#include <floe/config.hpp>
#include <floe/result.hpp>
#include <floe/sigv4/canonical.hpp>
#include <floe/sigv4/signing_key_cache.hpp>

#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace floe::sigv4 {

/// Credentials as views; the caller keeps them alive for the call only.
struct credentials_view {
  std::string_view access_key_id;
  std::string_view secret_access_key;
  std::string_view session_token;  // empty: none
};

/// The request to sign. All views; nothing is kept after the call.
struct request_view {
  std::string_view method;  // "GET", ...
  /// The path exactly as it goes on the wire (already percent-encoded for S3),
  /// without the query. See path_rules for how it is canonicalised.
  std::string_view path;
  /// Query parameters, already encoded (see query_param_view), in wire order.
  std::span<query_param_view const> query;
  /// The headers to sign, Host included (required). Give only headers that
  /// reach the server unchanged (not Connection, Expect, User-Agent,
  /// Transfer-Encoding...). A caller-supplied Authorization is ignored; so are
  /// X-Amz-Date, and X-Amz-Security-Token / X-Amz-Content-SHA256 when the
  /// signer adds its own.
  std::span<header_view const> headers;
  /// Hex SHA-256 of the body, unsigned_payload, or a streaming_* constant.
  /// Required for header signing; empty means unsigned_payload when presigning.
  std::string_view payload_hash;
};

struct signing_params {
  std::string_view region;   // "us-east-1"
  std::string_view service;  // "s3", "sqs", "sts", ...
  path_rules path = path_rules::generic;
  /// Header signing only: add a signed X-Amz-Content-SHA256 carrying the
  /// payload hash (S3 requires it).
  bool content_sha256_header = false;
  /// false: the session token is sent (header or query) but not signed, for
  /// the few services that want it added after signing. Default true.
  bool sign_session_token = true;

  /// S3 defaults: service "s3", path_rules::s3, X-Amz-Content-SHA256 on.
  static signing_params s3(std::string_view region) noexcept {
    return {region, "s3", path_rules::s3, true, true};
  }
  /// Any other service (SQS, STS, ...): generic path rules.
  static signing_params generic(std::string_view region, std::string_view service) noexcept {
    return {region, service, path_rules::generic, false, true};
  }
};

/// Header names the signer adds.
inline constexpr std::string_view authorization_header = "Authorization";
inline constexpr std::string_view amz_date_header = "X-Amz-Date";
inline constexpr std::string_view security_token_header = "X-Amz-Security-Token";
inline constexpr std::string_view content_sha256_header = "X-Amz-Content-SHA256";

/// Result of header signing: the headers to add, and the intermediates.
/// Reuse one object across calls: every member is cleared, not freed, so its
/// capacity carries over.
struct header_signature {
  std::string x_amz_date;         // "20150830T123600Z"
  std::string security_token;     // X-Amz-Security-Token value; empty: do not send
  std::string content_sha256;     // X-Amz-Content-SHA256 value; empty: do not send
  std::string authorization;      // Authorization value
  std::string canonical_request;  // intermediates, for tests and debugging
  std::string string_to_sign;
  std::string signature;  // 64 hex digits
  std::string signed_headers;  // "host;x-amz-date"

  /// Calls f(name, value) for each header to add to the request, in the order
  /// X-Amz-Date, X-Amz-Security-Token, X-Amz-Content-SHA256, Authorization.
  template <class F>
  void for_each_header(F&& f) const {
    f(amz_date_header, std::string_view(x_amz_date));
    if (!security_token.empty()) f(security_token_header, std::string_view(security_token));
    if (!content_sha256.empty()) f(content_sha256_header, std::string_view(content_sha256));
    f(authorization_header, std::string_view(authorization));
  }
};

/// Result of presigning.
struct presigned_query {
  /// The query string to append to the request's own (after '&', or after
  /// '?' when it has none): X-Amz-Algorithm, X-Amz-Credential, X-Amz-Date,
  /// X-Amz-Expires, X-Amz-SignedHeaders, [X-Amz-Security-Token,]
  /// X-Amz-Signature, in that order (botocore's), values encoded.
  std::string query;
  std::string canonical_request;
  std::string string_to_sign;
  std::string signature;
  std::string signed_headers;
};

/// Presigned URLs live 1 s to 7 days.
inline constexpr std::chrono::seconds min_presign_expiry{1};
inline constexpr std::chrono::seconds max_presign_expiry{7 * 24 * 3600};

class signer {
 public:
  signer() = default;

  /// Signs `req` for sending with an Authorization header at time `now`.
  /// Errors (errc::invalid_argument, nothing written that can be sent): empty
  /// method, region, service or access key id; no Host header; empty payload
  /// hash. Never throws except std::bad_alloc while growing buffers.
  FLOE_DECL result<void> sign_headers(request_view const& req, credentials_view const& creds,
                                      signing_params const& params, std::chrono::system_clock::time_point now,
                                      header_signature& out);

  /// Presigns `req` (query-string authentication) valid for `expires` from
  /// `now`. The headers in `req` are signed and must be sent as given. Errors:
  /// as sign_headers, and errc::invalid_argument for an expiry outside
  /// [1 s, 7 days].
  FLOE_DECL result<void> presign(request_view const& req, credentials_view const& creds,
                                 signing_params const& params, std::chrono::system_clock::time_point now,
                                 std::chrono::seconds expires, presigned_query& out);

  signing_key_cache& key_cache() noexcept { return cache_; }

 private:
  struct sorted_header {
    std::string_view name;
    std::string_view value;
    std::uint32_t index;  // position in the input, to keep duplicates in order
  };

  // Sorts headers_ and writes canonical headers (with the blank line) to
  // `canonical` and the signed-header list to `signed_list`.
  void canonical_headers(std::string& canonical, std::string& signed_list);
  void finish(std::string_view amz_date, credentials_view const& creds, signing_params const& params,
              std::string const& canonical_request, std::string& string_to_sign, std::string& signature);

  signing_key_cache cache_;
  std::vector<sorted_header> headers_;  // scratch, capacity reused
  std::vector<query_param_view> query_;  // scratch, capacity reused
};

}  // namespace floe::sigv4

#if defined(FLOE_HEADER_ONLY)
#include <floe/sigv4/impl/signer.ipp>
#endif
