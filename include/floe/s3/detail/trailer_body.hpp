#pragma once
// An upload's body in the aws-chunked trailer form
// (STREAMING-UNSIGNED-PAYLOAD-TRAILER, sigv4/aws_chunked.hpp): the bytes go
// out framed in chunks as they are read, their checksum computed in the
// same pass and sent in the trailer: the store keeps exactly what it
// checked. Used for a caller's stream, which is read once and so cannot be
// hashed before it goes (files and memory go in the header form,
// detail/upload_checksum.hpp); as any stream, it is never sent twice.

#include <floe/checksum/algorithm.hpp>
#include <floe/config.hpp>
#include <floe/error.hpp>
#include <floe/http/body.hpp>
#include <floe/http/fields.hpp>
#include <floe/sigv4/aws_chunked.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace floe::s3::detail {

// Payload bytes per chunk (S3 takes at least 8 KiB but for the last).
inline constexpr std::size_t trailer_chunk = 64u << 10;

// What one trailer-form body is doing; shared by the body's callbacks and
// the operation, which reads the trailer's value once the body was sent.
struct trailer_state {
  std::uint64_t length = 0;  // payload bytes
  checksum::algorithm alg = checksum::algorithm::crc64nvme;
  std::optional<sigv4::aws_chunked_encoder> enc;
  std::uint64_t pos = 0;     // payload bytes read
  http::body_source::read_fn source;  // the caller's stream
};

// The body framing what `read` produces (`length` bytes; not replayable).
FLOE_DECL http::body_source stream_trailer_body(std::shared_ptr<trailer_state> const& s);

// Content-Encoding: aws-chunked, x-amz-decoded-content-length, x-amz-trailer
// and x-amz-sdk-checksum-algorithm (x-amz-content-sha256 is the payload
// hash the request is signed with: sigv4::streaming_unsigned_payload_trailer).
FLOE_DECL void set_trailer_headers(http::fields& h, checksum::algorithm a, std::uint64_t payload);

// Whether a store's answer refuses the trailer form itself (not the
// object): a 501, or a 400 naming the content hash or the encoding
// (XAmzContentSHA256Mismatch, InvalidArgument/InvalidRequest/NotImplemented
// about aws-chunked, x-amz-content-sha256, x-amz-trailer or
// x-amz-decoded-content-length).
FLOE_DECL bool refuses_trailer(error const& e);

}  // namespace floe::s3::detail

#if defined(FLOE_HEADER_ONLY)
#include <floe/s3/detail/impl/trailer_body.ipp>
#endif
