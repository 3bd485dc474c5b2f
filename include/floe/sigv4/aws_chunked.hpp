#pragma once
// The aws-chunked framing of an upload whose X-Amz-Content-SHA256 is
// streaming_unsigned_payload_trailer ("STREAMING-UNSIGNED-PAYLOAD-TRAILER"):
// the payload in chunks, then its checksum in a trailer, computed over the
// bytes as they are framed (one pass over the source):
//
//   <hex size>\r\n<size bytes>\r\n   (every chunk but the last: `chunk` bytes)
//   ...
//   0\r\n
//   x-amz-checksum-<alg>:<base64>\r\n
//   \r\n
//
// The request carries Content-Encoding: aws-chunked, x-amz-trailer:
// x-amz-checksum-<alg>, x-amz-decoded-content-length: <payload size> and a
// Content-Length of encoded_length(). Pure (it allocates only the
// trailer's base64 value): the caller
// hands payload bytes in and takes framed bytes out.

#include <floe/checksum/algorithm.hpp>
#include <floe/checksum/hasher.hpp>
#include <floe/config.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace floe::sigv4 {

/// The Content-Length of `payload` bytes framed in chunks of `chunk` bytes
/// (chunk > 0) with a trailing checksum of algorithm `a`.
FLOE_DECL std::uint64_t aws_chunked_length(std::uint64_t payload, std::size_t chunk, checksum::algorithm a) noexcept;

class aws_chunked_encoder {
 public:
  /// Reads the next payload bytes into `dst`; returns how many (0: the
  /// source ended early, an error). Sets `failed` to stop.
  /// `payload`: the bytes to frame; `chunk`: the payload bytes per chunk
  /// (> 0; S3 takes at least 8 KiB but for the last).
  FLOE_DECL aws_chunked_encoder(std::uint64_t payload, std::size_t chunk, checksum::algorithm a) noexcept;

  /// The next framed bytes into `out` (at least 64 bytes), pulling payload
  /// bytes through `pull(span) -> size_t` as they are needed (each pull
  /// asks for at most what is left of the current chunk and of `out`). The
  /// count written; 0 once everything was written. A pull that returns 0
  /// before the payload's end stops the encoder: it returns 0 and
  /// `short_source()` is true.
  template <class Pull>
  std::size_t next(std::span<char> out, Pull&& pull);

  bool done() const noexcept { return state_ == state::done && pending_at_ == pending_size_; }
  bool short_source() const noexcept { return short_; }
  /// The checksum of the payload framed so far (the trailer's value once done()).
  checksum::digest value() const noexcept { return h_.value(); }
  std::uint64_t encoded_length() const noexcept { return total_; }

 private:
  enum class state : std::uint8_t { header, data, data_end, last, done };
  // Prepares the framing bytes of the next step in pending_.
  FLOE_DECL void frame() noexcept;
  FLOE_DECL std::size_t drain(std::span<char> out, std::size_t at) noexcept;

  std::uint64_t left_;       // payload bytes not yet pulled
  std::size_t chunk_;
  std::size_t in_chunk_ = 0;  // payload bytes left in the current chunk
  std::uint64_t total_;
  checksum::hasher h_;
  state state_ = state::header;
  bool short_ = false;
  // Framing waiting to go out: a chunk head, a CRLF, or the final chunk and
  // the trailer (at most "0\r\n" + 31 + ":" + 44 + "\r\n\r\n").
  std::array<char, 96> pending_{};
  std::size_t pending_size_ = 0;
  std::size_t pending_at_ = 0;
};

template <class Pull>
std::size_t aws_chunked_encoder::next(std::span<char> out, Pull&& pull) {
  std::size_t at = 0;
  while (at < out.size() && !short_) {
    if (pending_at_ < pending_size_) {
      at = drain(out, at);
      continue;
    }
    if (state_ == state::done) break;
    if (state_ == state::data) {
      auto const want = std::min<std::size_t>(in_chunk_, out.size() - at);
      std::size_t const got = pull(out.subspan(at, want));
      if (got == 0 || got > want) {
        short_ = true;
        return 0;
      }
      h_.update(out.data() + at, got);
      at += got;
      in_chunk_ -= got;
      left_ -= got;
      if (in_chunk_ == 0) state_ = state::data_end;
      continue;
    }
    frame();
  }
  return short_ ? 0 : at;
}

}  // namespace floe::sigv4

#if defined(FLOE_HEADER_ONLY)
#include <floe/sigv4/impl/aws_chunked.ipp>
#endif
