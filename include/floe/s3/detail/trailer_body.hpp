#pragma once
// An upload's body in the aws-chunked trailer form
// (STREAMING-UNSIGNED-PAYLOAD-TRAILER, sigv4/aws_chunked.hpp): the bytes go
// out framed in chunks as they are read, their checksum computed in the
// same pass and sent in the trailer: the store keeps exactly what it
// checked. Used for a caller's stream, which is read once and so cannot be
// hashed before it goes (as any stream, it is never sent twice), and for
// the parts of a multipart upload from a file, each read once instead of
// twice (a hashing pass, then the send, as the header form needs:
// detail/upload_checksum.hpp); such a part is a restartable body
// (http/restartable_body.hpp): every attempt reads and hashes it again.
// A single PUT of a file or of memory goes in the header form.

#include <floe/checksum/algorithm.hpp>
#include <floe/config.hpp>
#include <floe/error.hpp>
#include <floe/http/body.hpp>
#include <floe/http/fields.hpp>
#include <floe/http/message.hpp>
#include <floe/sigv4/aws_chunked.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace floe::s3::detail {

// Payload bytes per chunk for a body written in pieces of `write_size`
// bytes (http::client_config::io_chunk: 64 KiB by default, 1 MiB in the
// CLI): the largest whole number of 4 KiB pages whose framed chunk (its
// hex size and CRLF, the payload, CRLF) fits in one piece, and never under
// the 8 KiB S3 takes for every chunk but the last. 60 KiB for 64 KiB
// pieces, 1,020 KiB for 1 MiB. With whole framed chunks per write
// (framing_reader) each write reads a file once, at a page-aligned offset,
// and hashes whole 256-byte blocks: with 64 KiB chunks in 1 MiB writes a
// part was read in 64 KiB preads (and hashed in pieces), 16 times as many
// reads as the same part sent without a checksum.
FLOE_DECL std::size_t trailer_chunk_for(std::size_t write_size) noexcept;

// The bytes of one full framed chunk of `chunk` payload bytes.
FLOE_DECL std::size_t framed_chunk_size(std::size_t chunk) noexcept;

// What one trailer-form body is doing; shared by the body's callbacks and
// the operation, which reads the trailer's value once the body was sent.
struct trailer_state {
  std::uint64_t length = 0;  // payload bytes
  std::size_t chunk = 64u << 10;  // payload bytes per chunk (trailer_chunk_for)
  checksum::algorithm alg = checksum::algorithm::crc64nvme;
  std::optional<sigv4::aws_chunked_encoder> enc;
  std::uint64_t pos = 0;     // payload bytes read
  http::body_source::read_fn source;  // the caller's stream
};

// The body framing what s->source produces (s->length bytes in chunks of
// s->chunk, hashed with s->alg; not replayable).
FLOE_DECL http::body_source stream_trailer_body(std::shared_ptr<trailer_state> const& s);

// The reader framing s's payload (s->enc made), pulling it from s->source.
// Given room for one framed chunk or more, a call writes whole framed
// chunks only (and the final chunk and trailer once the payload is done).
FLOE_DECL http::body_source::read_fn framing_reader(std::shared_ptr<trailer_state> const& s);

// The trailer states of a restartable body's attempts: `latest` is the one
// of the attempt sent last (its value is the checksum the store kept once
// the request succeeded).
struct trailer_attempts {
  std::shared_ptr<trailer_state> latest;
};

// `length` bytes from a reader `source` makes anew for each attempt,
// framed and hashed as they are read: a restartable body
// (http/restartable_body.hpp) whose every attempt starts the framing and
// the checksum again.
FLOE_DECL http::body_source restartable_trailer_body(std::function<http::body_source::read_fn()> source,
                                                     std::uint64_t length, std::size_t chunk, checksum::algorithm alg,
                                                     std::shared_ptr<trailer_attempts> const& out);

// `length` bytes of the file at `path` from `offset`, framed and hashed as
// they are read: restartable, each attempt opens the file and starts again
// (a file shorter than that is an error of the attempt, as for file bodies).
FLOE_DECL http::body_source file_trailer_body(std::string path, std::uint64_t offset, std::uint64_t length,
                                              std::size_t chunk, checksum::algorithm alg,
                                              std::shared_ptr<trailer_attempts> const& out);

// Content-Encoding: aws-chunked, x-amz-decoded-content-length, x-amz-trailer
// and x-amz-sdk-checksum-algorithm (x-amz-content-sha256 is the payload
// hash the request is signed with: sigv4::streaming_unsigned_payload_trailer).
FLOE_DECL void set_trailer_headers(http::fields& h, checksum::algorithm a, std::uint64_t payload);

// Whether a store's answer refuses the trailer form itself (not the
// object): a 501, or a 400 naming the content hash or the encoding
// (XAmzContentSHA256Mismatch, InvalidArgument/InvalidRequest/NotImplemented
// about aws-chunked, x-amz-content-sha256, x-amz-trailer or
// x-amz-decoded-content-length, or Scality's "Trailing checksum is not
// supported").
FLOE_DECL bool refuses_trailer(error const& e);

// For op_spec::before_retry of a trailer-form request: Ceph RGW 16.2's
// refusal of the form (400 XAmzContentSHA256Mismatch, retryable for a
// hashed body) is not tried again in this form: the store takes none. An
// empty error: retry as usual.
FLOE_DECL error trailer_refused_before_retry(http::response const& res);

}  // namespace floe::s3::detail

#if defined(FLOE_HEADER_ONLY)
#include <floe/s3/detail/impl/trailer_body.ipp>
#endif
