#pragma once
// What an S3 operation's arguments become on the wire, pure: inputs in,
// fields of an op_spec or an http::request (headers, query, body bytes) out.
// No Asio, no sockets. The request bodies with XML in them are built by
// s3/replies.hpp.

#include <floe/config.hpp>
#include <floe/http/body.hpp>
#include <floe/http/message.hpp>
#include <floe/http/url.hpp>
#include <floe/s3/addressing.hpp>
#include <floe/s3/client_config.hpp>
#include <floe/s3/detail/operation.hpp>
#include <floe/s3/params.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace floe::s3::detail {

// S3's limits on one PUT and on the parts of a multipart upload.
inline constexpr std::uint64_t max_single_put = 5ull << 30;
inline constexpr std::uint64_t min_part_size = 5ull << 20;
inline constexpr std::uint64_t max_parts = 10000;

// An ETag as S3 wants it in If-Match / If-None-Match on reads: quoted.
FLOE_DECL std::string quoted_etag(std::string_view etag);

// The If-Match of a write: quoted, or bare when `unquoted` (a store that
// refuses the quoted form; put_params::if_match_unquoted).
FLOE_DECL std::string write_if_match(std::string_view etag, bool unquoted);

// Content-MD5: the base64 of the MD5 of `data`.
FLOE_DECL std::string md5_base64(std::string_view data);

// x-amz-copy-source: /bucket/key, the key percent-encoded with '/' kept.
FLOE_DECL std::string copy_source(copy_params const& p);

// ---- Where a request goes and what it signs (the driver's S3 part).

// Aims `req` and `ep` at `tgt`: the connection's scheme, host and port, the
// method, the wire path with op's query, and the Host header.
FLOE_DECL void address_request(op_spec const& op, request_target const& tgt, http::endpoint& ep, http::request& req);

// x-amz-content-sha256: op's own hash when it has one, else the SHA-256 of a
// memory body (written into `memory_hash`, which the view returned may
// name), the empty body's hash, or UNSIGNED-PAYLOAD for file and stream
// bodies.
FLOE_DECL std::string_view payload_hash_of(std::string_view given, http::body_source const& body,
                                           std::array<char, 64>& memory_hash);

// ---- Reads.

// op for a HeadObject or GetObject of bucket/key under conditions `c`.
FLOE_DECL void read_op(op_spec& op, std::string_view operation, std::string_view method, std::string const& bucket,
                       std::string const& key, read_conditions const& c);

// If-Match / If-None-Match of a HeadObject.
FLOE_DECL void set_read_conditions(http::request& req, read_conditions const& c);

// A range whose end comes before its start.
FLOE_DECL bool backwards(get_params const& p) noexcept;

// The read's headers: Range from `start` (when ranged), the version pinned
// by If-Match (the caller's, or the ETag a resumed download first saw), and
// If-None-Match on a first request.
FLOE_DECL void set_read_headers(http::request& req, get_params const& p, bool ranged, std::uint64_t start,
                                std::string const& pinned_etag, bool first_request);

// ---- Writes.

// Content-Type, x-amz-meta-* and the write options of a PutObject or
// CreateMultipartUpload.
// A value with CR, LF or NUL leaves req.headers invalid (see fields::valid).
FLOE_DECL void set_object_headers(http::request& req, put_params const& p);

// What is wrong with `w`, naming the value: an sse other than "AES256" or
// "aws:kms", or a KMS key id without "aws:kms". Empty when nothing is.
FLOE_DECL std::string write_options_problem(write_options const& w);

// x-amz-storage-class, x-amz-server-side-encryption, its KMS key id,
// x-amz-acl and Cache-Control: those `w` sets.
FLOE_DECL void set_write_options(http::request& req, write_options const& w);

// If-Match / If-None-Match: * of a write (PutObject, CompleteMultipartUpload,
// DeleteObject), and the op's and the request's conditional-write marks.
FLOE_DECL void set_write_conditions(http::request& req, op_spec& op, std::string_view if_match,
                                    bool if_match_unquoted, std::string_view if_none_match);

// An unconditional upload of `size` bytes goes as one PutObject (not in
// parts).
FLOE_DECL bool goes_as_one_put(std::uint64_t size, client_config const& cfg) noexcept;

// Why a conditional upload of `size` bytes, more than one PUT may carry
// (`limit`, client_config::max_single_put), is refused on a store that
// would drop its condition (plan_conditional_upload in
// s3/store_support.hpp).
FLOE_DECL error conditional_upload_refused(std::string const& bucket, std::string const& key, std::uint64_t size,
                                           std::uint64_t limit, put_params const& p);

// The parts of a multipart upload of `size` bytes: `wanted` bytes each,
// kept within S3's 5 MiB .. 5 GiB and grown to keep the count at most
// 10,000.
struct part_plan {
  std::uint64_t part_size = 0;
  std::size_t count = 0;
};
FLOE_DECL part_plan plan_parts(std::uint64_t size, std::uint64_t wanted) noexcept;

// ---- Copies.

// Whether a copy replaces the source's metadata (x-amz-metadata-directive:
// REPLACE): it sets a content type, metadata or a Cache-Control.
FLOE_DECL bool replaces_metadata(copy_params const& p) noexcept;

// The new object's Content-Type and metadata, each the copy's own when set,
// else the source's (`src`, from a HeadObject), and its write options: what
// a copy in parts sends on CreateMultipartUpload, and a replacing
// CopyObject with its directive.
FLOE_DECL put_params copied_object_params(copy_params const& p, object_info const& src);

// A CopyObject's headers: x-amz-copy-source and its conditions; under
// REPLACE the directive with copied_object_params' headers, else the write
// options alone (the store copies the source's type and metadata).
FLOE_DECL void set_copy_headers(http::request& req, copy_params const& p, object_info const& src);

// An UploadPartCopy of bytes [off, off + len) of `source`, pinned to the
// source's ETag `etag` (when given and not empty).
FLOE_DECL void set_part_copy(op_spec& op, http::request& req, copy_params const& source, std::string const* etag,
                             std::uint64_t off, std::uint64_t len);

// ---- DeleteObjects.

// Whether XML 1.0 can carry `key` (no control characters but tab, CR, LF).
FLOE_DECL bool xml_safe(std::string_view key) noexcept;

// Moves the next keys from keys[i...] into `batch` (at most 1000), keys XML
// cannot carry into `singles` (deleted one by one), advancing `i`.
FLOE_DECL void next_delete_batch(std::vector<std::string>& keys, std::size_t& i, std::vector<std::string>& batch,
                                 std::vector<std::string>& singles);

// ---- ListObjectsV2 and buckets.

// The query of a ListObjectsV2 page after `listed` keys, continuing from
// `token` (empty on the first page).
FLOE_DECL void list_objects_query(query_builder& q, list_params const& p, std::uint64_t listed,
                                  std::string const& token);

// CreateBucket's body: a LocationConstraint for `region`; empty in
// us-east-1 (or no region), which takes none.
FLOE_DECL std::string create_bucket_body(std::string_view region);

}  // namespace floe::s3::detail

#if defined(FLOE_HEADER_ONLY)
#include <floe/s3/detail/impl/request_building.ipp>
#endif
