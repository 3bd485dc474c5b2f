#pragma once
// s3::client: the S3 operations over floe's HTTP client and SigV4 signer.
//
// Every operation is an `async_*` initiating function taking a completion
// token (default asio::deferred), so `co_await c.async_head_object(b, k)`
// works, and so do callbacks, futures and as_tuple. Each completes with a
// `floe::result<T>`: the value, or a floe::error whose code says what kind of
// failure it was (errc::not_found, errc::precondition_failed, errc::conflict,
// errc::denied, errc::stale_credentials, errc::unknown_outcome, ...; see
// DESIGN.md's table) and whose diagnostics name the operation, the resource,
// the HTTP status, the store's code and message and the request id.
//
// Every signed request asks the credentials provider. A reply classified as
// stale credentials (for a refreshable provider, also AccessDenied and a
// bodiless 403) invalidates the generation that signed it and is retried
// once with fresh credentials, outside the retry quota. A reply naming
// another region (x-amz-bucket-region on a 301/400) is followed once and the
// bucket's region remembered.
//
// Threading: a client runs on its executor; call it from one thread or a
// strand. Several operations may be in flight at once (they share the
// connection pool). No threads of its own.
//
// Cancellation: terminal cancellation through the token's cancellation slot
// aborts the request in flight (its connection is closed). A multipart
// upload that is cancelled or fails is aborted on the store.
//
// Lifetimes: the client must outlive every operation it started. Arguments
// are copied into the operation unless said otherwise.

#include <floe/config.hpp>
#include <floe/credentials/environment.hpp>
#include <floe/credentials/provider.hpp>
#include <floe/errors/kind.hpp>
#include <floe/http/client.hpp>
#include <floe/result.hpp>
#include <floe/s3/addressing.hpp>
#include <floe/s3/replies.hpp>
#include <floe/sigv4/signer.hpp>

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace floe::s3 {

struct client_config {
  /// Endpoint URL, region and addressing style from the caller (empty:
  /// resolved from the environment and the profile, see addressing.hpp).
  addressing_params addressing;
  /// Profile and shared-file locations (empty: AWS_PROFILE, ~/.aws/...).
  credentials::shared_files_params shared_files;
  /// Where credentials come from; null: the static chain (environment,
  /// then the shared files), read once at create().
  std::shared_ptr<credentials::provider> credentials;
  /// Environment lookup; null: the process environment.
  credentials::env_lookup env;
  http::client_config http;
  /// Objects at least this large go up in parts (async_upload_file).
  std::uint64_t multipart_threshold = 64ull << 20;
  /// Part size for multipart uploads (5 MiB .. 5 GiB; grown to keep the
  /// part count at most 10,000).
  std::uint64_t part_size = 16ull << 20;
  /// Parts in flight at once.
  unsigned multipart_concurrency = 4;
  /// Broken downloads (connection lost mid-body) resumed with Range plus
  /// If-Match before giving up.
  unsigned max_resumes = 5;
  /// The wall clock used for signing; null: system_clock::now. Tests set it.
  std::function<std::chrono::system_clock::time_point()> clock;
};

/// What HeadObject (and GetObject) tell of an object.
struct object_info {
  std::uint64_t size = 0;          // Content-Length of the whole object
  std::string etag;                // normalised: no quotes
  std::string last_modified;       // as sent (HTTP date)
  std::string content_type;
  std::string version_id;
  std::string content_range;       // for a ranged GET: "bytes a-b/total"
  /// User metadata (x-amz-meta-*), names lower-cased without the prefix.
  std::vector<std::pair<std::string, std::string>> metadata;
};

/// Conditions on a read. A failed If-Match is errc::precondition_failed; a
/// matching If-None-Match is errc::not_modified-like success with
/// `not_modified` set (see get_result / head).
struct read_conditions {
  std::string if_match;       // ETag, quoted or not
  std::string if_none_match;  // ETag, quoted or not
};

struct get_params {
  /// Bytes [first, last] (inclusive), or [first, end) when last is nullopt.
  std::optional<std::pair<std::uint64_t, std::optional<std::uint64_t>>> range;
  read_conditions conditions;
};

struct get_result {
  object_info info;
  std::string body;  // for async_get_object; empty for downloads to a file
  bool not_modified = false;  // 304: If-None-Match matched
  unsigned resumes = 0;       // times a broken transfer was resumed
};

struct put_params {
  std::string content_type;
  std::vector<std::pair<std::string, std::string>> metadata;  // x-amz-meta-<name>
  /// Write only if the object's current ETag is this (quoted or not).
  std::string if_match;
  /// "*": create only, fail if the object exists. No other value is accepted
  /// (Ceph RGW overwrites on a quoted ETag there).
  std::string if_none_match;
};

struct put_result {
  std::string etag;  // normalised
  std::string version_id;
  unsigned parts = 0;  // 0 for a single PUT
};

struct delete_params {
  std::string if_match;
};

struct list_params {
  std::string prefix;
  std::string delimiter;
  std::string start_after;
  /// Per page (1..1000); all pages are fetched regardless.
  unsigned page_size = 1000;
  /// Stop after this many keys in all (0: no limit).
  std::uint64_t max_keys = 0;
};

struct listing {
  std::vector<object_summary> objects;
  std::vector<std::string> common_prefixes;
  unsigned pages = 0;
};

struct copy_params {
  std::string source_bucket, source_key;
  std::string bucket, key;
  /// Copy-source conditions (x-amz-copy-source-if-match / -if-none-match).
  std::string source_if_match;
  std::string source_if_none_match;
};

namespace detail {
struct op_spec;
}

class client {
 public:
  using executor_type = boost::asio::any_io_executor;

  /// Resolves endpoint, region, addressing and credentials. Errors: an
  /// unusable endpoint URL, region or addressing style (invalid_argument,
  /// naming where it came from); a configured but broken credential source.
  /// No credentials at all is not an error here: the first signed request
  /// fails with errc::credentials_unavailable.
  FLOE_DECL static result<std::unique_ptr<client>> create(executor_type ex, client_config cfg = {});

  FLOE_DECL ~client();
  client(client const&) = delete;
  client& operator=(client const&) = delete;

  executor_type get_executor() const noexcept { return http_.get_executor(); }
  http::client& http() noexcept { return http_; }
  addressing_config const& addressing() const noexcept { return addressing_; }
  credentials::provider& credentials_provider() noexcept { return *provider_; }
  bucket_region_cache& bucket_regions() noexcept { return regions_; }
  client_config const& config() const noexcept { return cfg_; }

  /// HeadObject. Errors: not_found (missing key or bucket: a HEAD reply has
  /// no body to tell which), precondition_failed, denied, ...
  template <class Token = boost::asio::deferred_t>
  auto async_head_object(std::string bucket, std::string key, read_conditions cond = {}, Token&& token = {}) {
    return start<result<get_result>>(
        [this, b = std::move(bucket), k = std::move(key), c = std::move(cond)]() mutable {
          return do_head(std::move(b), std::move(k), std::move(c));
        },
        std::forward<Token>(token));
  }

  /// GetObject into memory (bounded by http.body_limit).
  template <class Token = boost::asio::deferred_t>
  auto async_get_object(std::string bucket, std::string key, get_params p = {}, Token&& token = {}) {
    return start<result<get_result>>(
        [this, b = std::move(bucket), k = std::move(key), p = std::move(p)]() mutable {
          return do_get(std::move(b), std::move(k), std::move(p), std::string{}, http::body_sink::write_fn{});
        },
        std::forward<Token>(token));
  }

  /// GetObject into the file at `path` (created or truncated). A transfer
  /// broken mid-body resumes with Range plus If-Match on the ETag first
  /// seen, so two versions are never spliced: if the object changed in
  /// between the download fails with errc::precondition_failed.
  template <class Token = boost::asio::deferred_t>
  auto async_download(std::string bucket, std::string key, std::string path, get_params p = {}, Token&& token = {}) {
    return start<result<get_result>>(
        [this, b = std::move(bucket), k = std::move(key), p = std::move(p), f = std::move(path)]() mutable {
          return do_get(std::move(b), std::move(k), std::move(p), std::move(f), http::body_sink::write_fn{});
        },
        std::forward<Token>(token));
  }

  /// GetObject handing the body to `write` piece by piece (e.g. stdout).
  /// A broken transfer resumes as async_download does.
  template <class Token = boost::asio::deferred_t>
  auto async_get_object_to(std::string bucket, std::string key, http::body_sink::write_fn write, get_params p = {},
                           Token&& token = {}) {
    return start<result<get_result>>(
        [this, b = std::move(bucket), k = std::move(key), p = std::move(p), w = std::move(write)]() mutable {
          return do_get(std::move(b), std::move(k), std::move(p), std::string{}, std::move(w));
        },
        std::forward<Token>(token));
  }

  /// PutObject of one body (memory, file or stream; at most 5 GiB). Errors
  /// include precondition_failed (If-Match / If-None-Match failed),
  /// conflict (a concurrent conditional write won: nothing written) and
  /// unknown_outcome (a conditional write whose reply was lost or a 5xx).
  template <class Token = boost::asio::deferred_t>
  auto async_put_object(std::string bucket, std::string key, http::body_source body, put_params p = {},
                        Token&& token = {}) {
    return start<result<put_result>>(
        [this, b = std::move(bucket), k = std::move(key), body = std::move(body), p = std::move(p)]() mutable {
          return do_put(std::move(b), std::move(k), std::move(body), std::move(p));
        },
        std::forward<Token>(token));
  }

  /// Uploads the file at `path`: one PUT below multipart_threshold, else a
  /// multipart upload with parallel parts, aborted on failure or
  /// cancellation. A condition (If-Match / If-None-Match) on a multipart
  /// upload goes on CompleteMultipartUpload.
  template <class Token = boost::asio::deferred_t>
  auto async_upload_file(std::string bucket, std::string key, std::string path, put_params p = {},
                         Token&& token = {}) {
    return start<result<put_result>>(
        [this, b = std::move(bucket), k = std::move(key), f = std::move(path), p = std::move(p)]() mutable {
          return do_upload_file(std::move(b), std::move(k), std::move(f), std::move(p));
        },
        std::forward<Token>(token));
  }

  /// DeleteObject (a missing key is success, as S3 answers 204).
  template <class Token = boost::asio::deferred_t>
  auto async_delete_object(std::string bucket, std::string key, delete_params p = {}, Token&& token = {}) {
    return start<result<void>>(
        [this, b = std::move(bucket), k = std::move(key), p = std::move(p)]() mutable {
          return do_delete(std::move(b), std::move(k), std::move(p));
        },
        std::forward<Token>(token));
  }

  /// DeleteObjects in batches of 1000 with Content-MD5; per-key failures in
  /// the result. A key XML cannot carry (control characters) is deleted with
  /// DeleteObject instead.
  template <class Token = boost::asio::deferred_t>
  auto async_delete_objects(std::string bucket, std::vector<std::string> keys, Token&& token = {}) {
    return start<result<delete_objects_result>>(
        [this, b = std::move(bucket), k = std::move(keys)]() mutable { return do_delete_objects(std::move(b), std::move(k)); },
        std::forward<Token>(token));
  }

  /// ListObjectsV2, every page (encoding-type=url, keys decoded).
  template <class Token = boost::asio::deferred_t>
  auto async_list_objects(std::string bucket, list_params p = {}, Token&& token = {}) {
    return start<result<listing>>(
        [this, b = std::move(bucket), p = std::move(p)]() mutable { return do_list(std::move(b), std::move(p)); },
        std::forward<Token>(token));
  }

  /// CopyObject (server side; at most 5 GiB). A 200 carrying <Error> is an error.
  template <class Token = boost::asio::deferred_t>
  auto async_copy_object(copy_params p, Token&& token = {}) {
    return start<result<copy_result>>([this, p = std::move(p)]() mutable { return do_copy(std::move(p)); },
                                      std::forward<Token>(token));
  }

  /// CreateBucket (with a LocationConstraint outside us-east-1).
  template <class Token = boost::asio::deferred_t>
  auto async_create_bucket(std::string bucket, Token&& token = {}) {
    return start<result<void>>([this, b = std::move(bucket)]() mutable { return do_bucket(std::move(b), true); },
                               std::forward<Token>(token));
  }

  /// DeleteBucket (must be empty).
  template <class Token = boost::asio::deferred_t>
  auto async_delete_bucket(std::string bucket, Token&& token = {}) {
    return start<result<void>>([this, b = std::move(bucket)]() mutable { return do_bucket(std::move(b), false); },
                               std::forward<Token>(token));
  }

  /// A presigned URL for `method` ("GET", "PUT", "HEAD", "DELETE") on the
  /// object, valid for `expires` (1 s .. 7 days). Uses the credentials the
  /// provider has now. `warning` (when given) receives a note when the
  /// expiry outlives temporary credentials.
  FLOE_DECL result<std::string> presign(std::string_view method, std::string_view bucket, std::string_view key,
                                        std::chrono::seconds expires, std::string* warning = nullptr);

 private:
  FLOE_DECL client(executor_type ex, client_config cfg, addressing_config addr,
                   std::shared_ptr<credentials::provider> provider);

  template <class Result, class Make, class Token>
  auto start(Make&& make, Token&& token) {
    return boost::asio::async_initiate<Token, void(Result)>(
        [this](auto handler, auto mk) {
          http::detail::spawn<void(Result)>(http_.get_executor(), mk(), std::move(handler));
        },
        token, std::forward<Make>(make));
  }

  // One request: addressing, credentials, signing, send, classify, the
  // stale-credentials retry and the region redirect.
  FLOE_DECL boost::asio::awaitable<error> execute(detail::op_spec& op, http::request& req, http::response& res);

  FLOE_DECL boost::asio::awaitable<result<get_result>> do_head(std::string bucket, std::string key, read_conditions c);
  FLOE_DECL boost::asio::awaitable<result<get_result>> do_get(std::string bucket, std::string key, get_params p,
                                                              std::string path, http::body_sink::write_fn write);
  FLOE_DECL boost::asio::awaitable<result<put_result>> do_put(std::string bucket, std::string key,
                                                              http::body_source body, put_params p);
  FLOE_DECL boost::asio::awaitable<result<put_result>> do_upload_file(std::string bucket, std::string key,
                                                                      std::string path, put_params p);
  FLOE_DECL boost::asio::awaitable<result<put_result>> do_multipart(std::string bucket, std::string key,
                                                                    std::string path, std::uint64_t size,
                                                                    put_params p);
  FLOE_DECL boost::asio::awaitable<result<void>> do_delete(std::string bucket, std::string key, delete_params p);
  FLOE_DECL boost::asio::awaitable<result<delete_objects_result>> do_delete_objects(std::string bucket,
                                                                                    std::vector<std::string> keys);
  FLOE_DECL boost::asio::awaitable<result<listing>> do_list(std::string bucket, list_params p);
  FLOE_DECL boost::asio::awaitable<result<copy_result>> do_copy(copy_params p);
  FLOE_DECL boost::asio::awaitable<result<void>> do_bucket(std::string bucket, bool create);
  FLOE_DECL boost::asio::awaitable<void> abort_multipart(std::string bucket, std::string key, std::string upload_id);

  std::chrono::system_clock::time_point now() const { return cfg_.clock ? cfg_.clock() : std::chrono::system_clock::now(); }

  client_config cfg_;
  addressing_config addressing_;
  std::shared_ptr<credentials::provider> provider_;
  http::client http_;
  sigv4::signer signer_;
  sigv4::header_signature sig_;
  std::vector<sigv4::header_view> sign_headers_;  // scratch for the sign hook
  bucket_region_cache regions_;
};

}  // namespace floe::s3

#if defined(FLOE_HEADER_ONLY)
#include <floe/s3/impl/client.ipp>
#endif
