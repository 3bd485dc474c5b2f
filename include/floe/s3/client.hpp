#pragma once
// s3::client: the S3 operations over floe's HTTP client and SigV4 signer.
//
// Every operation is an `async_*` initiating function taking a completion
// token (default asio::deferred); whatever the token it runs on the
// client's executor, and `asio::use_awaitable` from a coroutine already
// there is the cheapest form (docs/async-api.md). Each completes with a
// `floe::result<T>`: the value, or a floe::error whose code says what kind
// of failure it was (errc::not_found, precondition_failed, conflict, denied,
// stale_credentials, unknown_outcome, ...: docs/design.md's error table)
// and whose diagnostics name the operation, the resource, the HTTP status,
// the store's code and message and the request id.
//
// Every signed request asks the credentials provider. A reply classified as
// stale credentials (for a refreshable provider, also AccessDenied and a
// bodiless 403) invalidates the generation that signed it and is retried
// once with fresh credentials, outside the retry quota. A reply naming
// another region (x-amz-bucket-region on a 301/400) is followed once and the
// bucket's region remembered.
//
// Threading, cancellation, lifetimes (docs/async-api.md): a client runs
// on its executor, whichever thread or executor starts an operation (on an
// io_context run by several threads, give it a strand); several operations
// may be in flight at once. Its one thread of its own, per execution
// context and only for uploads of files with a checksum, is the blocking
// worker that hashes a file before it is sent (detail/blocking_worker.hpp).
// Terminal cancellation through the token's slot aborts the request in
// flight (its connection closed); a cancelled or failed multipart upload is
// aborted on the store, on a client of its own, so this client need only
// outlive the operations it started. Arguments are copied into the
// operation unless said otherwise.
//
// Integrity (docs/design.md, "Checksums"): a GetObject of a whole object
// asks x-amz-checksum-mode: ENABLED and checks the bytes delivered, across
// resumed ranges too, against the object's full-object checksum, or a plain
// MD5 ETag where the store gives none; a mismatch is errc::checksum_mismatch
// (the GET tried once more first where no byte reached the caller). Every
// upload carries a checksum (CRC64NVME unless put_params or client_config
// names another; when_required sends none unless one is named): memory and
// file bodies in the header form (a file hashed in a first pass on the
// blocking worker thread), each part of a file and a caller's stream in
// the aws-chunked trailer form unless the store refuses it; Complete
// carries the whole object's (FULL_OBJECT CRC combined locally, or
// COMPOSITE). A body refused as BadDigest or XAmzContentSHA256Mismatch is
// sent again. HeadObject returns what the store keeps in
// object_info::checksums.
//
// GCC 12: bind a class-type temporary (`put_params{}`, `std::string("k")`)
// to a named variable before a co_await expression (docs/async-api.md); no
// async_* function has a class-type default argument for that reason.
//
// The client's configuration is s3/client_config.hpp; what its operations
// take and give, s3/params.hpp (both included here).

#include <floe/config.hpp>
#include <floe/credentials/provider.hpp>
#include <floe/http/client.hpp>
#include <floe/result.hpp>
#include <floe/s3/addressing.hpp>
#include <floe/s3/client_config.hpp>
#include <floe/s3/params.hpp>
#include <floe/s3/replies.hpp>
#include <floe/service/detail/launch.hpp>
#include <floe/service/driver.hpp>
#include <floe/session/session.hpp>
#include <floe/sigv4/signer.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/deferred.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace floe::s3 {

namespace detail {
struct op_spec;
struct op_scratch;
struct exchange_pool;
struct list_cursor;
}
class list_pager;

class client {
 public:
  using executor_type = boost::asio::any_io_executor;

  /// Resolves endpoint, region, addressing and credentials. Errors: an
  /// unusable endpoint URL, region or addressing style (invalid_argument,
  /// naming where it came from); a configured but broken credential source.
  /// No credentials at all is not an error here: the first signed request
  /// fails with errc::credentials_unavailable.
  /// A private session is made from cfg (its env, shared_files,
  /// credentials — null: the default chain — and http).
  FLOE_DECL static result<std::unique_ptr<client>> create(executor_type ex, client_config cfg = {});

  /// A client made from a shared configuration (session/session.hpp): its
  /// environment, profile, region, endpoint resolver, credentials provider
  /// (shared with every other client of the session: one refreshing cache)
  /// and HTTP settings. From `cfg` only the addressing (endpoint URL,
  /// region, style) and the transfer settings and clock are taken; its env,
  /// shared_files, credentials and http are the session's. Errors: an
  /// unusable endpoint URL, region or addressing style.
  FLOE_DECL static result<std::unique_ptr<client>> create(executor_type ex, session const& s, client_config cfg = {});

  FLOE_DECL ~client();
  client(client const&) = delete;
  client& operator=(client const&) = delete;

  executor_type get_executor() const noexcept { return http_.get_executor(); }
  http::client& http() noexcept { return http_; }
  addressing_config const& addressing() const noexcept { return addressing_; }
  credentials::provider& credentials_provider() noexcept { return *provider_; }
  bucket_region_cache& bucket_regions() noexcept { return regions_; }
  client_config const& config() const noexcept { return cfg_; }
  /// What this client's session has learned about stores (shared with the
  /// other clients made from it; a client made without one has its own).
  store_quirks& quirks() noexcept { return *quirks_; }
  /// What hedged reads did so far (service/driver.hpp): hedges sent and
  /// won, first attempts cut as late. Read on the client's executor.
  service::hedge_stats const& hedges() const noexcept { return driver_.hedges(); }

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

  /// GetObject into memory (bounded by http.body_limit). Verified (see
  /// Integrity above): a body that fails its checksum is fetched once more,
  /// then errc::checksum_mismatch.
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
  /// errc::precondition_failed. Verified (see Integrity above): bytes that
  /// fail the object's checksum are downloaded once more from the start
  /// (they reached only the temporary file), then errc::checksum_mismatch
  /// with `path` untouched. A `path` written in place gets no second try.
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
  /// A broken transfer resumes as async_download does. Verified (see
  /// Integrity above), but `write` has had every byte by the time a
  /// mismatch is known: the operation ends with errc::checksum_mismatch
  /// (no second GET), and the caller discards what it got.
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

  /// ListObjectsV2, every page (encoding-type=url, keys decoded), gathered
  /// whole in memory. For a listing of any size, s3::list_pager
  /// (s3/list_pager.hpp) reads it a page at a time. A store whose pages
  /// would never end (a continuation token seen before, a truncated page
  /// without a token, list_params::max_empty_pages empty pages in a row)
  /// fails it with errc::malformed_reply.
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

  /// Warm-up (http::client::async_warm_up on this client's connections):
  /// opens connections (TLS done) until `n` idle ones wait for the host
  /// requests to `bucket` go to (virtual-hosted: the bucket's own host),
  /// so the first requests find them. Without a bucket: the client's
  /// endpoint (where every request goes with a custom endpoint and path
  /// style). Completes with the first failure or none; errc::invalid_argument
  /// for a bucket name that cannot be addressed. Needs no credentials.
  template <class Token = boost::asio::deferred_t>
  auto async_warm_up(std::size_t n, Token&& token = {}) {
    return async_warm_up(std::string_view(), n, std::forward<Token>(token));
  }
  template <class Token = boost::asio::deferred_t>
  auto async_warm_up(std::string_view bucket, std::size_t n, Token&& token = {}) {
    return boost::asio::async_initiate<Token, void(error)>(
        [this](auto handler, std::string b, std::size_t count) {
          http::detail::spawn<void(error)>(get_executor(), run_warm_up(std::move(b), count), std::move(handler));
        },
        token, std::string(bucket), n);
  }

 private:
  // async_warm_up's body: the endpoint requests to `bucket` go to (empty:
  // the client's), warmed by the http::client.
  FLOE_DECL boost::asio::awaitable<error> run_warm_up(std::string bucket, std::size_t n);

  friend class list_pager;  // start() and do_list_page()

  FLOE_DECL client(executor_type ex, client_config cfg, addressing_config addr,
                   std::shared_ptr<credentials::provider> provider);
  // What the driver is told of S3: rest-xml errors, S3's signing rules.
  FLOE_DECL static service::description service_description() noexcept;

  // Starts an operation for `token` on the client's executor
  // (service/detail/launch.hpp): make() returns its awaitable and holds the
  // arguments that its do_* coroutine borrows.
  template <class Result, class Make, class Token>
  auto start(Make&& make, Token&& token) {
    return service::detail::start<Result>(http_.get_executor(), std::forward<Make>(make), std::forward<Token>(token));
  }

  // One request (impl/driver.ipp): S3's addressing, payload hash and
  // region redirect around the service driver (credentials, signing, send,
  // retries, classification, the heal). The outcome is s.failure (empty:
  // success).
  FLOE_DECL boost::asio::awaitable<void> perform(detail::op_spec& op, http::request& req, http::response& res,
                                                 detail::op_scratch& s);
  // perform, completing with its outcome (for the operations off the hot path).
  FLOE_DECL boost::asio::awaitable<error> execute(detail::op_spec& op, http::request& req, http::response& res);
  // perform's helpers, out of its coroutine frame. S3's own: where a
  // request goes, and whether a redirect named a region to go to instead.
  FLOE_DECL bool target_for(detail::op_spec const& op, request_target& out, error& why);
  FLOE_DECL bool follow_region(detail::op_spec const& op, http::response const& res, std::string_view sign_region);
  // Points the request at its target (s.spec and req); describes it to the
  // driver (s.spec, the hooks).
  FLOE_DECL bool aim(detail::op_spec const& op, http::request& req, detail::op_scratch& s, error& why);
  FLOE_DECL bool describe_request(detail::op_spec& op, http::request& req, detail::op_scratch& s, error& why);
  friend struct detail::op_scratch;

  // The operations: objects.ipp, transfers.ipp, list.ipp, copy.ipp,
  // buckets.ipp (presign in presign.ipp).
  FLOE_DECL boost::asio::awaitable<result<get_result>> do_head(std::string const& bucket, std::string const& key, read_conditions const& c);
  FLOE_DECL boost::asio::awaitable<result<get_result>> do_get_memory(std::string const& bucket, std::string const& key,
                                                                     get_params const& p);
  FLOE_DECL boost::asio::awaitable<result<get_result>> do_get(std::string const& bucket, std::string const& key,
                                                              get_params const& p, std::string const* path,
                                                              http::body_sink::write_fn const* write);
  FLOE_DECL boost::asio::awaitable<result<put_result>> do_put(std::string const& bucket, std::string const& key,
                                                              http::body_source const& body, put_params const& p);
  // PutObject in the aws-chunked trailer form (objects.ipp); nullopt: the
  // store refused the form, go on in the header form.
  FLOE_DECL boost::asio::awaitable<std::optional<result<put_result>>> do_put_trailer(detail::op_spec& op,
                                                                                  http::body_source const& body,
                                                                                  put_params const& p,
                                                                                  checksum::algorithm alg);
  // The store's key in the session's quirks: the custom endpoint, or AWS's region.
  FLOE_DECL std::string store_key() const;
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
  // The next page of a listing read a page at a time (list_pager).
  FLOE_DECL boost::asio::awaitable<result<list_page>> do_list_page(detail::list_cursor& cur);
  FLOE_DECL boost::asio::awaitable<result<copy_result>> do_copy(copy_params const& p);
  FLOE_DECL boost::asio::awaitable<result<bucket_listing>> do_list_buckets();
  FLOE_DECL boost::asio::awaitable<result<void>> do_bucket(std::string const& bucket, bool create);
  FLOE_DECL boost::asio::awaitable<void> abort_multipart(std::string const& bucket, std::string const& key, std::string const& upload_id);
  // Starts abort_multipart detached, on a client of its own (transfers.ipp).
  FLOE_DECL void abort_detached(std::string const& bucket, std::string const& key, std::string const& upload_id);

  std::chrono::system_clock::time_point now() const { return cfg_.clock ? cfg_.clock() : std::chrono::system_clock::now(); }

  client_config cfg_;
  addressing_config addressing_;
  std::shared_ptr<credentials::provider> provider_;
  http::client http_;
  service::driver driver_;
  sigv4::signer signer_;  // presign
  std::shared_ptr<detail::exchange_pool> spare_exchanges_;  // warm request/response pairs, reused
  bucket_region_cache regions_;
  std::shared_ptr<store_quirks> quirks_ = std::make_shared<store_quirks>();
};

}  // namespace floe::s3

#if defined(FLOE_HEADER_ONLY)
#include <floe/s3/impl/client.ipp>
#include <floe/s3/impl/driver.ipp>
#include <floe/s3/impl/warm_up.ipp>
#include <floe/s3/impl/objects.ipp>
#include <floe/s3/impl/transfers.ipp>
#include <floe/s3/impl/copy.ipp>
#include <floe/s3/impl/list.ipp>
#include <floe/s3/impl/buckets.ipp>
#include <floe/s3/impl/presign.ipp>
#endif
