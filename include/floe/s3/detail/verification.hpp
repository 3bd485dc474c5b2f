#pragma once
// Whether a GetObject's bytes are the object's, pure: what the reply head
// promises (expected_of), and a verifier fed the body's bytes in order as
// they reach the caller, across resumed ranges, that compares at the end.
// No Asio, no sockets.
//
// What is checked, first found wins, only for a GET of the whole object (no
// Range asked by the caller) answered 200:
//   - a full-object checksum: x-amz-checksum-crc32 | crc32c | crc64nvme |
//     sha1 | sha256 with x-amz-checksum-type absent or FULL_OBJECT. A
//     composite value ("<base64>-N", a multipart object's checksum of its
//     parts' checksums) is no checksum of the bytes: skipped, and so is a
//     value that is not the base64 of a digest of its algorithm's size;
//   - else the ETag, when it is a plain MD5 (32 hex digits, no "-N": a
//     single-part object) and the reply names neither SSE-KMS
//     (x-amz-server-side-encryption: aws:kms...) nor SSE-C
//     (x-amz-server-side-encryption-customer-algorithm), whose ETags are not
//     the MD5 of the bytes;
//   - else nothing.

#include <floe/config.hpp>
#include <floe/checksum/algorithm.hpp>
#include <floe/checksum/hasher.hpp>
#include <floe/credentials/profile.hpp>
#include <floe/environment.hpp>
#include <floe/http/fields.hpp>
#include <floe/http/message.hpp>
#include <floe/result.hpp>
#include <floe/s3/params.hpp>

#include <openssl/md5.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace floe::s3::detail {

// What a reply lets floe check its body against.
struct expected_digest {
  enum class kind { none, checksum, md5 };
  kind what = kind::none;
  checksum::algorithm alg = checksum::algorithm::crc32;  // kind::checksum
  std::string value;  // as the reply carries it: base64 (checksum), lower-case hex (md5)
};

// The rules above, on a reply's headers; `whole`: a 200 to a GET that asked
// for no range.
FLOE_DECL expected_digest expected_of(http::fields const& headers, bool whole);

class body_verifier {
 public:
  // Checks the bytes that follow against `e` (kind::none: nothing to do).
  FLOE_DECL void start(expected_digest e) noexcept;
  bool started() const noexcept { return started_; }
  bool checking() const noexcept { return e_.what != expected_digest::kind::none; }

  // The next bytes of the body, in order.
  FLOE_DECL void update(std::string_view piece) noexcept;

  // "" when the bytes fed match (or nothing is checked); else what differs,
  // naming the algorithm, the expected and the computed value.
  FLOE_DECL std::string mismatch() const;

  // Back to not started (a GET tried again from its first byte).
  FLOE_DECL void reset() noexcept;

 private:
  expected_digest e_;
  bool started_ = false;
  std::uint64_t size_ = 0;
  checksum::hasher h_{checksum::algorithm::crc32};
  MD5_CTX md5_{};
};

// A GET into memory, its body held whole in `res`: whether it matches what
// its head promises (true when nothing is checked: a ranged GET, not a
// 200); `asked_whole`: no Range was asked. The mismatch's message, "" when
// it matches.
FLOE_DECL std::string memory_body_mismatch(http::response const& res, bool asked_whole);
inline bool memory_body_matches(http::response const& res, bool asked_whole) {
  return memory_body_mismatch(res, asked_whole).empty();
}

// Whether a GET verifies: the call's setting, else the client's, else
// when_supported.
inline bool validating(std::optional<checksum_validation> call, std::optional<checksum_validation> client) noexcept {
  return call.value_or(client.value_or(checksum_validation::when_supported)) == checksum_validation::when_supported;
}

// A GET that verifies asks the store for its checksums.
inline void ask_checksums(http::fields& headers) { headers.set("x-amz-checksum-mode", "ENABLED"); }

// "when_supported" or "when_required" in any case; otherwise nullopt.
FLOE_DECL std::optional<checksum_validation> parse_checksum_validation(std::string_view v) noexcept;

// The setting a client takes: the caller's, else
// AWS_RESPONSE_CHECKSUM_VALIDATION, else the profile's
// response_checksum_validation, else when_supported. invalid_argument
// naming the value and where it came from.
FLOE_DECL result<checksum_validation> resolve_checksum_validation(std::optional<checksum_validation> caller,
                                                                 env_lookup const& env,
                                                                 credentials::profile const* prof);

}  // namespace floe::s3::detail

#if defined(FLOE_HEADER_ONLY)
#include <floe/s3/detail/impl/verification.ipp>
#endif
