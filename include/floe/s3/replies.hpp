#pragma once
// S3 request bodies floe builds and reply bodies it reads, pure: bytes in,
// values out. ListObjectsV2, DeleteObjects, the multipart trio and the copy
// results. Error replies (including a 200 whose body is <Error>) are the
// business of errors::describe_reply; these functions see only successful
// bodies, and refuse an <Error> document as malformed so that it can never
// be mistaken for a result.

#include <floe/checksum/algorithm.hpp>
#include <floe/config.hpp>
#include <floe/error.hpp>
#include <floe/result.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace floe::s3 {

/// An ETag as the store sent it (quotes and all) reduced to the bare value:
/// surrounding quotes and a weak "W/" prefix removed. Compare ETags only in
/// this form.
FLOE_DECL std::string_view normalize_etag(std::string_view etag) noexcept;

/// Decodes the `encoding-type=url` form S3 uses in list replies: %XX escapes,
/// and '+' as a space (a literal '+' arrives as %2B). A bad escape is
/// errc::malformed_reply.
FLOE_DECL result<std::string> url_decode(std::string_view s);

struct object_summary {
  std::string key;
  std::uint64_t size = 0;
  std::string etag;           // normalised (no quotes)
  std::string last_modified;  // as sent, ISO 8601
  std::string storage_class;
};

/// One page of ListObjectsV2.
struct list_page {
  std::vector<object_summary> objects;
  std::vector<std::string> common_prefixes;
  bool truncated = false;
  std::string next_continuation_token;
  std::uint64_t key_count = 0;
};

/// Parses a ListObjectsV2 reply (`ListBucketResult`). With `url_encoded`
/// (floe always asks for encoding-type=url) keys and prefixes are decoded;
/// the reply's own <EncodingType> must then say "url", or the keys are taken
/// as they are (a store that ignored the parameter).
FLOE_DECL result<list_page> parse_list_objects_v2(std::string_view body, bool url_encoded = true);

struct bucket_summary {
  std::string name;
  std::string creation_date;  // as sent, ISO 8601
  std::string region;         // <BucketRegion> when the store sends it (AWS), else empty
};

/// One page of ListBuckets.
struct bucket_list_page {
  std::vector<bucket_summary> buckets;
  std::string owner_id;
  std::string owner_display_name;
  /// Set when the store paginates ListBuckets (AWS with max-buckets); empty
  /// otherwise (Ceph, moto and AWS without max-buckets send all buckets).
  std::string continuation_token;
};

/// Parses a ListBuckets reply (`ListAllMyBucketsResult`). A <Bucket> without
/// a <Name> is errc::malformed_reply.
FLOE_DECL result<bucket_list_page> parse_list_buckets(std::string_view body);

/// The body of a DeleteObjects request for `keys` (at most 1000): XML with
/// each key escaped, Quiet on when `quiet`. Keys with characters XML 1.0
/// cannot carry (control characters other than tab/CR/LF) are refused with
/// errc::invalid_argument naming the key's position.
FLOE_DECL result<std::string> build_delete_objects_body(std::span<std::string const> keys, bool quiet);

struct delete_failure {
  std::string key;
  std::string code;
  std::string message;
};
struct delete_objects_result {
  std::vector<std::string> deleted;
  std::vector<delete_failure> errors;
  /// Set by client::async_delete_objects only (a parsed reply leaves them
  /// empty): when a batch's request failed after earlier batches ran, the
  /// error that stopped it, and the keys whose fate is unknown or that were
  /// never sent (the failed batch's and the later ones'). `failure.code` is
  /// empty when every batch ran.
  error failure;
  std::vector<std::string> not_done;
  bool complete() const noexcept { return !failure.code; }
};
/// Parses a DeleteObjects reply (`DeleteResult`).
FLOE_DECL result<delete_objects_result> parse_delete_objects(std::string_view body);

/// The UploadId of an InitiateMultipartUploadResult.
FLOE_DECL result<std::string> parse_initiate_multipart(std::string_view body);

struct completed_part {
  unsigned number = 0;  // 1..10000
  std::string etag;     // as UploadPart returned it
  /// The part's checksum as sent on its UploadPart (base64; empty: none),
  /// carried back as <Checksum{ALG}> in CompleteMultipartUpload.
  std::string checksum;
  checksum::algorithm checksum_algorithm = checksum::algorithm::crc64nvme;
};
/// The body of CompleteMultipartUpload, parts in ascending number order,
/// each with its checksum when it has one.
FLOE_DECL std::string build_complete_multipart_body(std::span<completed_part const> parts);

struct complete_result {
  std::string etag;  // normalised; empty when the store sent none (Ceph 16.2 sends <ETag></ETag>)
  std::string location;
};
/// Parses a CompleteMultipartUploadResult (moto 5's
/// CompleteMultipartUploadResponse too). An empty or missing ETag is not an
/// error here: see multipart_etag.
FLOE_DECL result<complete_result> parse_complete_multipart(std::string_view body);

/// The ETag S3 and Ceph give an object assembled from `parts`: the hex MD5 of
/// the concatenated binary MD5s of the parts, "-", the part count. Only
/// defined when every part's ETag is a plain 32-hex-digit MD5 (quoted or
/// not); empty otherwise (e.g. SSE-KMS parts, whose ETags are not MD5s).
/// Parts in number order.
FLOE_DECL std::string multipart_etag(std::span<completed_part const> parts);

struct copy_result {
  std::string etag;  // normalised
  std::string last_modified;
};
/// Parses a CopyObjectResult or CopyPartResult.
FLOE_DECL result<copy_result> parse_copy_result(std::string_view body);

/// Appends `s` to `out` escaped for XML character data.
FLOE_DECL void append_xml_escaped(std::string& out, std::string_view s);

}  // namespace floe::s3

#if defined(FLOE_HEADER_ONLY)
#include <floe/s3/impl/replies.ipp>
#endif
