#pragma once
// s3::client: the S3 operations over floe's HTTP client and SigV4 signer.
//
// Every operation is an `async_*` initiating function taking a completion
// token (default asio::deferred), so `co_await c.async_head_object(b, k)`
// works, and so do callbacks, futures and as_tuple. In a coroutine,
// `co_await c.async_head_object(b, k, asio::use_awaitable)` is the cheapest
// form: the operation runs in the calling coroutine (no coroutine of its
// own, no completion hop) and shares its cancellation. Each completes with a
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
//
// GCC 12: do not pass a class-type temporary (`put_params{}`,
// `std::string("k")`, `http::body_source::memory(x)`) inside a co_await
// expression; bind it to a named variable first. GCC 12 relocates such
// temporaries into the coroutine frame byte by byte, which corrupts any
// std::string inside them (clang and later GCC do not). For that reason no
// async_* function has a class-type default argument: the overloads without
// the params argument build the default inside the call instead.

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
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <type_traits>
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
  /// Where credentials come from; null: the default chain of
  /// credentials/chain.hpp (environment keys, web identity, the profile with
  /// its role chains and credential_process, container credentials, IMDSv2),
  /// built at create() and resolved on first use.
  std::shared_ptr<credentials::provider> credentials;
  /// Environment lookup; null: the process environment.
  credentials::env_lookup env;
  http::client_config http;
  /// Objects at least this large go up in parts (async_upload_file).
  std::uint64_t multipart_threshold = 64ull << 20;
  /// The most one PutObject may carry: S3's limit (5 GiB). Larger uploads
  /// go in parts; a conditional one then needs its condition honoured on
  /// CompleteMultipartUpload, or is refused (s3/conditional.hpp,
  /// plan_conditional_upload). Tests set a small value.
  std::uint64_t max_single_put = 5ull << 30;
  /// Part size for multipart uploads (5 MiB .. 5 GiB; grown to keep the
  /// part count at most 10,000).
  std::uint64_t part_size = 16ull << 20;
  /// Parts in flight at once.
  unsigned multipart_concurrency = 4;
  /// async_copy_object copies sources larger than this (at most 5 GiB) in
  /// parts with UploadPartCopy, of copy_part_size each (5 MiB .. 5 GiB).
  std::uint64_t multipart_copy_threshold = 5ull << 30;
  std::uint64_t copy_part_size = 512ull << 20;
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
  /// Send if_match without quotes (Ceph RGW 16.2 answers a correctly quoted
  /// If-Match on a write with 412). Set by the conditional layer
  /// (s3/conditional.hpp), which learns per endpoint when it is needed.
  bool if_match_unquoted = false;
  /// Optional: told how many bytes of the object have been sent so far, as
  /// they reach the socket (a multipart upload: all parts in flight and
  /// done). The count can go back when an attempt is retried. Called on the
  /// client's executor; must not throw.
  std::function<void(std::uint64_t bytes_sent)> on_progress;
};

struct put_result {
  std::string etag;  // normalised
  std::string version_id;
  unsigned parts = 0;  // 0 for a single PUT
};

struct delete_params {
  std::string if_match;
  /// As put_params::if_match_unquoted.
  bool if_match_unquoted = false;
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

/// Every bucket ListBuckets returned (all pages).
struct bucket_listing {
  std::vector<bucket_summary> buckets;
  std::string owner_id;
  std::string owner_display_name;
  unsigned pages = 0;
};

struct copy_params {
  std::string source_bucket, source_key;
  std::string bucket, key;
  /// Copy-source conditions (x-amz-copy-source-if-match / -if-none-match).
  std::string source_if_match;
  std::string source_if_none_match;
  /// The source's size when the caller knows it (e.g. from a listing);
  /// otherwise a HeadObject of the source finds it.
  std::optional<std::uint64_t> source_size;
};

namespace detail {
struct op_spec;
struct op_scratch;
struct exchange_pool;
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
  /// As below, with default read_conditions.
  template <class Token = boost::asio::deferred_t>
    requires(!std::is_convertible_v<Token, read_conditions>)
  auto async_head_object(std::string_view bucket, std::string_view key, Token&& token = {}) {
    return async_head_object(bucket, key, read_conditions{}, std::forward<Token>(token));
  }

  template <class Token = boost::asio::deferred_t>
  auto async_head_object(std::string_view bucket, std::string_view key, read_conditions cond, Token&& token = {}) {
    return start<result<get_result>>(
        [this, b = std::string(bucket), k = std::string(key), c = std::move(cond)]() mutable {
          return do_head(b, k, c);
        },
        std::forward<Token>(token));
  }

  /// GetObject into memory (bounded by http.body_limit).
  /// As below, with default get_params.
  template <class Token = boost::asio::deferred_t>
    requires(!std::is_convertible_v<Token, get_params>)
  auto async_get_object(std::string_view bucket, std::string_view key, Token&& token = {}) {
    return async_get_object(bucket, key, get_params{}, std::forward<Token>(token));
  }

  template <class Token = boost::asio::deferred_t>
  auto async_get_object(std::string_view bucket, std::string_view key, get_params p, Token&& token = {}) {
    return start<result<get_result>>(
        [this, b = std::string(bucket), k = std::string(key), p = std::move(p)]() mutable {
          return do_get_memory(b, k, p);
        },
        std::forward<Token>(token));
  }

  /// GetObject into the file at `path`. The body goes to a temporary file
  /// in the same directory, renamed over `path` only when the whole body
  /// arrived: a failure (404, a failed If-Match, a broken transfer that
  /// could not resume), a cancellation or a 304 (If-None-Match matched)
  /// leaves what was at `path` untouched and removes the temporary file. A
  /// symbolic link at `path` is followed (its target is replaced); a
  /// `path` that exists and is not a regular file (a FIFO, /dev/null) is
  /// written in place. A transfer broken mid-body resumes with Range plus
  /// If-Match on the ETag first seen, so two versions are never spliced: if
  /// the object changed in between the download fails with
  /// errc::precondition_failed.
  /// As below, with default get_params.
  template <class Token = boost::asio::deferred_t>
    requires(!std::is_convertible_v<Token, get_params>)
  auto async_download(std::string_view bucket, std::string_view key, std::string_view path, Token&& token = {}) {
    return async_download(bucket, key, path, get_params{}, std::forward<Token>(token));
  }

  template <class Token = boost::asio::deferred_t>
  auto async_download(std::string_view bucket, std::string_view key, std::string_view path, get_params p, Token&& token = {}) {
    return start<result<get_result>>(
        [this, b = std::string(bucket), k = std::string(key), p = std::move(p), f = std::string(path)]() mutable {
          return do_get(b, k, p, &f, nullptr);
        },
        std::forward<Token>(token));
  }

  /// GetObject handing the body to `write` piece by piece (e.g. stdout).
  /// A broken transfer resumes as async_download does.
  /// As below, with default get_params.
  template <class Token = boost::asio::deferred_t>
    requires(!std::is_convertible_v<Token, get_params>)
  auto async_get_object_to(std::string_view bucket, std::string_view key, http::body_sink::write_fn write, Token&& token = {}) {
    return async_get_object_to(bucket, key, write, get_params{}, std::forward<Token>(token));
  }

  template <class Token = boost::asio::deferred_t>
  auto async_get_object_to(std::string_view bucket, std::string_view key, http::body_sink::write_fn write, get_params p,
                           Token&& token = {}) {
    return start<result<get_result>>(
        [this, b = std::string(bucket), k = std::string(key), p = std::move(p), w = std::move(write)]() mutable {
          return do_get(b, k, p, nullptr, &w);
        },
        std::forward<Token>(token));
  }

  /// PutObject of one body (memory, file or stream; at most
  /// client_config::max_single_put, 5 GiB by default). Errors
  /// include precondition_failed (If-Match / If-None-Match failed),
  /// conflict (a concurrent conditional write won: nothing written) and
  /// unknown_outcome (a conditional write whose reply was lost or a 5xx).
  /// As below, with default put_params.
  template <class Token = boost::asio::deferred_t>
    requires(!std::is_convertible_v<Token, put_params>)
  auto async_put_object(std::string_view bucket, std::string_view key, http::body_source body, Token&& token = {}) {
    return async_put_object(bucket, key, body, put_params{}, std::forward<Token>(token));
  }

  template <class Token = boost::asio::deferred_t>
  auto async_put_object(std::string_view bucket, std::string_view key, http::body_source body, put_params p,
                        Token&& token = {}) {
    return start<result<put_result>>(
        [this, b = std::string(bucket), k = std::string(key), body = std::move(body), p = std::move(p)]() mutable {
          return do_put(b, k, body, p);
        },
        std::forward<Token>(token));
  }

  /// Uploads the file at `path`: one PUT below multipart_threshold, else a
  /// multipart upload with parallel parts, aborted on failure or
  /// cancellation. A conditional upload (If-Match / If-None-Match) goes as
  /// one PUT up to max_single_put whatever the threshold (moto and Ceph RGW
  /// 16.2 ignore conditions on CompleteMultipartUpload). Above that, on
  /// AWS's own endpoints, its condition goes on CompleteMultipartUpload;
  /// anywhere else it fails with errc::unsupported before anything is sent
  /// (plan_conditional_upload in s3/store_support.hpp): a condition is never
  /// silently dropped.
  /// As below, with default put_params.
  template <class Token = boost::asio::deferred_t>
    requires(!std::is_convertible_v<Token, put_params>)
  auto async_upload_file(std::string_view bucket, std::string_view key, std::string_view path, Token&& token = {}) {
    return async_upload_file(bucket, key, path, put_params{}, std::forward<Token>(token));
  }

  template <class Token = boost::asio::deferred_t>
  auto async_upload_file(std::string_view bucket, std::string_view key, std::string_view path, put_params p,
                         Token&& token = {}) {
    return start<result<put_result>>(
        [this, b = std::string(bucket), k = std::string(key), f = std::string(path), p = std::move(p)]() mutable {
          return do_upload_file(b, k, f, p);
        },
        std::forward<Token>(token));
  }

  /// DeleteObject (a missing key is success, as S3 answers 204).
  /// As below, with default delete_params.
  template <class Token = boost::asio::deferred_t>
    requires(!std::is_convertible_v<Token, delete_params>)
  auto async_delete_object(std::string_view bucket, std::string_view key, Token&& token = {}) {
    return async_delete_object(bucket, key, delete_params{}, std::forward<Token>(token));
  }

  template <class Token = boost::asio::deferred_t>
  auto async_delete_object(std::string_view bucket, std::string_view key, delete_params p, Token&& token = {}) {
    return start<result<void>>(
        [this, b = std::string(bucket), k = std::string(key), p = std::move(p)]() mutable {
          return do_delete(b, k, p);
        },
        std::forward<Token>(token));
  }

  /// DeleteObjects in batches of 1000 with Content-MD5; per-key failures in
  /// the result. A key XML cannot carry (control characters) is deleted with
  /// DeleteObject instead. A batch whose request fails (after the HTTP
  /// layer's retries) stops the operation: if it was the first request, the
  /// operation completes with that error (nothing was deleted); otherwise
  /// with a value whose `deleted` and `errors` hold what the batches before
  /// it did, `failure` the error and `not_done` the keys of the failed
  /// batch and of those never sent (see delete_objects_result).
  /// Cancellation: as a failure, reported the same way.
  template <class Token = boost::asio::deferred_t>
  auto async_delete_objects(std::string_view bucket, std::vector<std::string> keys, Token&& token = {}) {
    return start<result<delete_objects_result>>(
        [this, b = std::string(bucket), k = std::move(keys)]() mutable { return do_delete_objects(b, k); },
        std::forward<Token>(token));
  }

  /// ListObjectsV2, every page (encoding-type=url, keys decoded).
  /// As below, with default list_params.
  template <class Token = boost::asio::deferred_t>
    requires(!std::is_convertible_v<Token, list_params>)
  auto async_list_objects(std::string_view bucket, Token&& token = {}) {
    return async_list_objects(bucket, list_params{}, std::forward<Token>(token));
  }

  template <class Token = boost::asio::deferred_t>
  auto async_list_objects(std::string_view bucket, list_params p, Token&& token = {}) {
    return start<result<listing>>(
        [this, b = std::string(bucket), p = std::move(p)]() mutable { return do_list(b, p); },
        std::forward<Token>(token));
  }

  /// CopyObject, server side. The source's size (copy_params::source_size,
  /// else a HeadObject of it) decides: up to multipart_copy_threshold one
  /// CopyObject; above it a multipart upload whose parts are UploadPartCopy
  /// ranges, each pinned to the source's ETag with
  /// x-amz-copy-source-if-match (so a source replaced meanwhile fails with
  /// precondition_failed instead of mixing versions), content type and user
  /// metadata carried over, aborted on failure or cancellation. A 200
  /// carrying <Error> (CopyObject, UploadPartCopy, Complete) is an error.
  /// Copy-source conditions (source_if_match / source_if_none_match) that
  /// fail are errc::precondition_failed, nothing copied. AWS enforces them
  /// on the CopyObject itself; moto ignores x-amz-copy-source-if-match and
  /// Ceph RGW 16.2 ignores both. So on every endpoint but AWS's own
  /// (is_aws_endpoint, s3/store_support.hpp) floe also checks them with a
  /// HeadObject just before the copy, and afterwards compares the copy's
  /// ETag with what they allow: a source replaced between the check and the
  /// copy is then reported as precondition_failed too, with the message
  /// saying that the destination WAS written (with which ETag).
  template <class Token = boost::asio::deferred_t>
  auto async_copy_object(copy_params p, Token&& token = {}) {
    return start<result<copy_result>>([this, p = std::move(p)]() mutable { return do_copy(p); },
                                      std::forward<Token>(token));
  }

  /// ListBuckets: the buckets the credentials' owner has, every page. A
  /// service-level request (no bucket in the host or path). Errors: denied,
  /// malformed_reply, ... as usual.
  template <class Token = boost::asio::deferred_t>
  auto async_list_buckets(Token&& token = {}) {
    return start<result<bucket_listing>>([this]() { return do_list_buckets(); }, std::forward<Token>(token));
  }

  /// CreateBucket (with a LocationConstraint outside us-east-1).
  template <class Token = boost::asio::deferred_t>
  auto async_create_bucket(std::string_view bucket, Token&& token = {}) {
    return start<result<void>>([this, b = std::string(bucket)]() mutable { return do_bucket(b, true); },
                               std::forward<Token>(token));
  }

  /// DeleteBucket (must be empty).
  template <class Token = boost::asio::deferred_t>
  auto async_delete_bucket(std::string_view bucket, Token&& token = {}) {
    return start<result<void>>([this, b = std::string(bucket)]() mutable { return do_bucket(b, false); },
                               std::forward<Token>(token));
  }

  /// A presigned URL for `method` ("GET", "PUT", "HEAD", "DELETE") on the
  /// object, valid for `expires` (1 s .. 7 days). Uses the credentials the
  /// provider has now (synchronous: with a refreshing provider, co_await
  /// credentials_provider().async_get() first, or it answers
  /// errc::credentials_unavailable until a set is cached). `warning` (when
  /// given) receives a note when the expiry outlives temporary credentials.
  FLOE_DECL result<std::string> presign(std::string_view method, std::string_view bucket, std::string_view key,
                                        std::chrono::seconds expires, std::string* warning = nullptr);

 private:
  FLOE_DECL client(executor_type ex, client_config cfg, addressing_config addr,
                   std::shared_ptr<credentials::provider> provider);

  // Runs make() (which returns the operation's awaitable) as a coroutine of
  // its own. The function object, and so every argument it captured, lives
  // in co_spawn's frame until the operation completes: the do_* coroutines
  // take their arguments by reference to those captures. With
  // asio::use_awaitable the operation is instead an awaitable run by the
  // caller's coroutine (run_inline): no coroutine thread of its own, no
  // completion hop — the cheapest form.
  template <class Result, class Make, class Token>
  auto start(Make&& make, Token&& token) {
    namespace asio = boost::asio;
    if constexpr (std::is_same_v<std::decay_t<Token>, asio::use_awaitable_t<executor_type>>) {
      return run_inline<Result>(std::forward<Make>(make));
    } else {
      return start_spawned<Result>(std::forward<Make>(make), std::forward<Token>(token));
    }
  }

  template <class Result, class Make, class Token>
  auto start_spawned(Make&& make, Token&& token) {
    namespace asio = boost::asio;
    return asio::async_initiate<Token, void(Result)>(
        [this](auto handler, auto mk) {
          auto ex = http_.get_executor();
          auto slot = asio::get_associated_cancellation_slot(handler);
          auto hex = asio::get_associated_executor(handler, ex);
          asio::co_spawn(ex, std::move(mk),
                         asio::bind_cancellation_slot(
                             slot, asio::bind_executor(hex, [h = std::move(handler)](std::exception_ptr e, Result v) mutable {
                               if (e) v = http::detail::error_from_exception(e);
                               std::move(h)(std::move(v));
                             })));
        },
        token, std::forward<Make>(make));
  }

  // The captures live in this frame; a failure thrown (cancellation seen at
  // a co_await, bad_alloc) completes as an error value, as with co_spawn.
  template <class Result, class Make>
  static boost::asio::awaitable<Result> run_inline(Make make) {
    try {
      co_return co_await make();
    } catch (...) {
      co_return Result(http::detail::error_from_exception(std::current_exception()));
    }
  }

  // One request: addressing, credentials, signing, send, classify, the
  // stale-credentials retry and the region redirect. The outcome is
  // s.failure (empty: success).
  FLOE_DECL boost::asio::awaitable<void> perform(detail::op_spec& op, http::request& req, http::response& res,
                                                 detail::op_scratch& s);
  // perform, completing with its outcome (for the operations off the hot path).
  FLOE_DECL boost::asio::awaitable<error> execute(detail::op_spec& op, http::request& req, http::response& res);
  // perform's helpers, out of its coroutine frame.
  FLOE_DECL bool target_for(detail::op_spec const& op, request_target& out, error& why);
  FLOE_DECL bool fixed_credentials(credentials::credentials& out, error& why) const;
  FLOE_DECL boost::asio::awaitable<void> fetch_credentials(credentials::credentials& out, error& why);
  FLOE_DECL void declined_refresh(error& out, error& stale) const;

  FLOE_DECL boost::asio::awaitable<result<get_result>> do_head(std::string const& bucket, std::string const& key, read_conditions const& c);
  FLOE_DECL boost::asio::awaitable<result<get_result>> do_get_memory(std::string const& bucket, std::string const& key,
                                                                     get_params const& p);
  FLOE_DECL boost::asio::awaitable<result<get_result>> do_get(std::string const& bucket, std::string const& key,
                                                              get_params const& p, std::string const* path,
                                                              http::body_sink::write_fn const* write);
  FLOE_DECL boost::asio::awaitable<result<put_result>> do_put(std::string const& bucket, std::string const& key,
                                                              http::body_source const& body, put_params const& p);
  FLOE_DECL boost::asio::awaitable<result<put_result>> do_upload_file(std::string const& bucket, std::string const& key,
                                                                      std::string const& path, put_params const& p);
  // A multipart upload of `size` bytes: from the file at `path`, or, when
  // `copy` is given, by UploadPartCopy from its source (ETag `copy_etag`).
  FLOE_DECL boost::asio::awaitable<result<put_result>> do_multipart(std::string const& bucket, std::string const& key,
                                                                    std::string const& path, std::uint64_t size,
                                                                    put_params const& p, copy_params const* copy = nullptr,
                                                                    std::string const* copy_etag = nullptr);
  FLOE_DECL boost::asio::awaitable<result<void>> do_delete(std::string const& bucket, std::string const& key, delete_params const& p);
  FLOE_DECL boost::asio::awaitable<result<delete_objects_result>> do_delete_objects(std::string const& bucket,
                                                                                    std::vector<std::string>& keys);
  FLOE_DECL boost::asio::awaitable<result<listing>> do_list(std::string const& bucket, list_params const& p);
  FLOE_DECL boost::asio::awaitable<result<copy_result>> do_copy(copy_params const& p);
  FLOE_DECL boost::asio::awaitable<result<bucket_listing>> do_list_buckets();
  FLOE_DECL boost::asio::awaitable<result<void>> do_bucket(std::string const& bucket, bool create);
  FLOE_DECL boost::asio::awaitable<void> abort_multipart(std::string const& bucket, std::string const& key, std::string const& upload_id);

  std::chrono::system_clock::time_point now() const { return cfg_.clock ? cfg_.clock() : std::chrono::system_clock::now(); }

  client_config cfg_;
  addressing_config addressing_;
  std::shared_ptr<credentials::provider> provider_;
  http::client http_;
  sigv4::signer signer_;
  sigv4::header_signature sig_;
  std::vector<sigv4::header_view> sign_headers_;  // scratch for the sign hook
  std::shared_ptr<detail::exchange_pool> spare_exchanges_;  // warm request/response pairs, reused
  bucket_region_cache regions_;
};

}  // namespace floe::s3

#if defined(FLOE_HEADER_ONLY)
#include <floe/s3/impl/client.ipp>
#endif
