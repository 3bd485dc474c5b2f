#pragma once
// The pieces of a SigV4 signature: the request as the signer sees it, the
// canonical request and the string to sign. Pure functions over views that
// append to a caller-owned std::string (whose capacity is reused, so a warm
// caller does not allocate). floe::sigv4::signer puts them together; they
// are public so that tests and tools can look at each step.

#include <floe/config.hpp>

#include <array>
#include <chrono>
#include <span>
#include <string>
#include <string_view>

namespace floe::sigv4 {

/// A header as the caller will send it. Names are matched without regard to
/// case; values are canonicalised by the signer (trimmed, runs of white space
/// folded to one space, duplicates joined with ',' in the order given).
struct header_view {
  std::string_view name;
  std::string_view value;
};

/// One query parameter, name and value ALREADY percent-encoded exactly as they
/// go on the wire (use uri_encode(x, true) on raw text). The signer never
/// encodes or decodes them; a parameter without '=' is a pair with an empty
/// value (SigV4 signs "name=" for it).
struct query_param_view {
  std::string_view name;
  std::string_view value;
};

/// How the wire path becomes the canonical URI.
enum class path_rules {
  /// S3: the canonical URI is the wire path as is (no dot-segment removal,
  /// "//" kept, nothing encoded again). The path must already be encoded,
  /// e.g. "/" + uri_encode(key, false).
  s3,
  /// Every other service: remove "." and ".." segments and empty segments
  /// (RFC 3986 5.2.4 plus "//" collapsing, trailing '/' kept), then
  /// uri_encode each segment, so an already-encoded path is encoded twice as
  /// AWS requires ("%20" -> "%2520").
  generic,
  /// As generic, without the normalisation (encode only).
  generic_unnormalized,
};

/// Payload hash values other than a hex SHA-256.
inline constexpr std::string_view unsigned_payload = "UNSIGNED-PAYLOAD";
inline constexpr std::string_view streaming_payload = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD";
inline constexpr std::string_view streaming_payload_trailer = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER";
inline constexpr std::string_view streaming_unsigned_payload_trailer = "STREAMING-UNSIGNED-PAYLOAD-TRAILER";
/// SHA-256 of the empty string.
inline constexpr std::string_view empty_payload_sha256 =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

inline constexpr std::string_view algorithm = "AWS4-HMAC-SHA256";

/// "yyyymmddThhmmssZ" (UTC) for `t`, truncated to the second.
FLOE_DECL std::array<char, 16> format_amz_date(std::chrono::system_clock::time_point t) noexcept;

/// Appends the canonical URI for `wire_path` ("/" when it is empty).
FLOE_DECL void append_canonical_uri(std::string& out, std::string_view wire_path, path_rules rules);

/// Appends `value` trimmed, with each run of white space (SP HT CR LF VT FF)
/// replaced by one space.
FLOE_DECL void append_canonical_header_value(std::string& out, std::string_view value);

/// Sorts `params` by (name, value), bytewise, and appends "n1=v1&n2=v2...".
FLOE_DECL void append_canonical_query(std::string& out, std::span<query_param_view> params);

/// Appends the string to sign: algorithm, amz date, scope
/// ("yyyymmdd/region/service/aws4_request"), hex SHA-256 of canonical_request.
FLOE_DECL void append_string_to_sign(std::string& out, std::string_view amz_date, std::string_view region,
                                     std::string_view service, std::string_view canonical_request);

}  // namespace floe::sigv4

#if defined(FLOE_HEADER_ONLY)
#include <floe/sigv4/impl/canonical.ipp>
#endif
