#pragma once
// What s3::client's operations take (read_conditions, *_params) and give
// (object_info, *_result, listings). The results of replies floe parses
// (copy_result, delete_objects_result, object_summary, bucket_summary) are
// in s3/replies.hpp.

#include <floe/checksum/algorithm.hpp>
#include <floe/config.hpp>
#include <floe/s3/replies.hpp>

#include <cstdint>
#include <functional>
#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace floe::s3 {

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
  /// The object's checksum when the reply carries one (x-amz-checksum-*:
  /// asked with x-amz-checksum-mode, read_conditions::checksum_mode), as
  /// sent: base64, a composite value's "-N" included.
  std::optional<checksum::algorithm> checksum_algorithm{};
  std::string checksum{};
};

/// Conditions on a read. A failed If-Match is errc::precondition_failed; a
/// matching If-None-Match is errc::not_modified-like success with
/// `not_modified` set (see get_result / head).
struct read_conditions {
  std::string if_match;       // ETag, quoted or not
  std::string if_none_match;  // ETag, quoted or not
  /// This version of the key (?versionId=); empty: the current one.
  std::string version_id{};
  /// HeadObject: ask for the object's checksum (x-amz-checksum-mode:
  /// ENABLED); object_info::checksum holds it when the store has one.
  /// (A GET that verifies asks for it anyway.)
  bool checksum_mode = false;
};

/// Whether a download is checked against the checksum its store returns,
/// as the AWS SDKs name it (`response_checksum_validation`):
/// when_supported (the default) checks every GET of a whole object that
/// carries a full-object checksum, or failing that a plain-MD5 ETag;
/// when_required checks none (no GetObject requires it). See
/// client.hpp, "Integrity".
enum class checksum_validation { when_supported, when_required };

struct get_params {
  /// Bytes [first, last] (inclusive), or [first, end) when last is nullopt.
  /// A ranged GET is not verified (a piece has no checksum of its own).
  std::optional<std::pair<std::uint64_t, std::optional<std::uint64_t>>> range;
  read_conditions conditions;
  /// This GET's checksum validation; nullopt: the client's
  /// (client_config::response_checksum_validation).
  std::optional<s3::checksum_validation> checksum_validation;
  /// A deadline for this call: every attempt, back-off, heal, redirect and
  /// resume of it; then errc::timeout. Zero: the client's
  /// (http.retry.deadline), per request.
  std::chrono::milliseconds deadline{0};
};

struct get_result {
  object_info info;
  std::string body;  // for async_get_object; empty for downloads to a file
  bool not_modified = false;  // 304: If-None-Match matched
  unsigned resumes = 0;       // times a broken transfer was resumed
};

/// How a written object is stored, beyond its bytes and metadata. Sent on
/// PutObject, CreateMultipartUpload and CopyObject (never on UploadPart); an
/// empty field sends nothing, leaving the bucket's or the store's default.
/// Checked before anything is sent (detail::write_options_problem): `sse`
/// only "AES256" or "aws:kms", `sse_kms_key_id` only with "aws:kms". The
/// storage class and ACL go as given, for the store to judge (a store's own
/// classes, as Ceph RGW's placement targets, are not in AWS's list).
struct write_options {
  std::string storage_class;   // x-amz-storage-class: STANDARD, STANDARD_IA, GLACIER, ...
  std::string sse;             // x-amz-server-side-encryption
  std::string sse_kms_key_id;  // x-amz-server-side-encryption-aws-kms-key-id
  std::string acl;             // x-amz-acl: a canned ACL, e.g. bucket-owner-full-control
  /// Cache-Control. On a copy it is a header of the new object's own, so it
  /// replaces the source's metadata (see copy_params::content_type).
  std::string cache_control;
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
  write_options write;
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
  /// Pages in a row with no entry (each with a new continuation token)
  /// before the listing fails with errc::malformed_reply (0: 100). A token
  /// seen before in the same listing fails it at once.
  unsigned max_empty_pages = 0;
  /// A deadline for the whole listing (async_list_objects: every page, its
  /// attempts and back-offs); then errc::timeout. Zero: the client's
  /// (http.retry.deadline), per request. A list_pager's pages use the
  /// client's.
  std::chrono::milliseconds deadline{0};
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
  /// The copy's Content-Type and user metadata; what is left unset is the
  /// source's. Setting either, or write.cache_control, sends
  /// x-amz-metadata-directive: REPLACE, which makes the store take every
  /// header of the new object from the request: the one of these two not
  /// set is then read from a HeadObject of the source and sent again, so
  /// only what is given changes. (The source's Cache-Control,
  /// Content-Encoding, Content-Disposition and Expires are not carried over
  /// under REPLACE.) An empty `metadata` replaces the source's with none.
  /// Without REPLACE, a copy in parts (above multipart_copy_threshold) is
  /// given the source's type and metadata the same way: the store does not
  /// copy them there.
  std::optional<std::string> content_type;
  std::optional<std::vector<std::pair<std::string, std::string>>> metadata;
  write_options write;
};

}  // namespace floe::s3
