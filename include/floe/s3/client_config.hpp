#pragma once
// s3::client_config: how an s3::client is set up — where it sends, whose
// credentials it signs with, and the sizes and counts of its transfers.

#include <floe/config.hpp>
#include <floe/credentials/environment.hpp>
#include <floe/credentials/provider.hpp>
#include <floe/credentials/shared_files.hpp>
#include <floe/http/client_config.hpp>
#include <floe/retry/hedge.hpp>
#include <floe/s3/addressing.hpp>
#include <floe/s3/params.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

namespace floe::s3 {

struct client_config {
  /// Endpoint URL, region and addressing style from the caller (empty:
  /// resolved from the environment and the profile, see addressing.hpp).
  addressing_params addressing;
  /// Profile and shared-file locations (empty: AWS_PROFILE, ~/.aws/...).
  credentials::shared_files_params shared_files;
  /// Where credentials come from; null: the default chain of
  /// providers/chain.hpp (environment keys, web identity, the profile with
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
  /// CompleteMultipartUpload, or is refused (plan_conditional_upload in
  /// s3/store_support.hpp). Tests set a small value.
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
  /// Whether GETs are checked against the checksum the store returns
  /// (get_params::checksum_validation overrides it per call). nullopt:
  /// AWS_RESPONSE_CHECKSUM_VALIDATION, else the profile's
  /// `response_checksum_validation`, else when_supported; read at create()
  /// (a value other than when_supported / when_required fails it with
  /// invalid_argument naming where it came from), and set here.
  std::optional<checksum_validation> response_checksum_validation;
  /// Whether uploads carry a checksum (put_params::checksum_calculation
  /// overrides it per call). nullopt: AWS_REQUEST_CHECKSUM_CALCULATION,
  /// else the profile's `request_checksum_calculation`, else
  /// when_supported; read at create() as response_checksum_validation is.
  std::optional<checksum_calculation> request_checksum_calculation;
  /// The algorithm of an upload's checksum when the call names none.
  checksum::algorithm checksum_algorithm = checksum::algorithm::crc64nvme;
  /// Hedged reads (GetObject into memory, HeadObject, the List
  /// operations; retry/hedge.hpp): on by default. `enabled = false` sends
  /// no hedge; a first byte later than the learned bound is still retried
  /// like a timeout (`late_factor`, `late_min`).
  retry::hedge_params hedge;
  /// The wall clock used for signing; null: system_clock::now. Tests set it.
  std::function<std::chrono::system_clock::time_point()> clock;
};

}  // namespace floe::s3
