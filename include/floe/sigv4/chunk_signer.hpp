#pragma once
// Chunk signatures for aws-chunked uploads whose X-Amz-Content-SHA256 is
// streaming_payload ("STREAMING-AWS4-HMAC-SHA256-PAYLOAD").
//
// Sign the request headers first with that payload hash (and the
// Content-Encoding: aws-chunked, X-Amz-Decoded-Content-Length and encoded
// Content-Length headers); its signature is the seed. Then each chunk is
// sent as "<hex size>;chunk-signature=<next(chunk)>\r\n<chunk>\r\n", ending
// with an empty chunk. Each signature chains on the previous one, so chunks
// must be signed in order. Pure, allocation-free; one object per upload.

#include <floe/config.hpp>
#include <floe/detail/sha256.hpp>
#include <floe/sigv4/signing_key_cache.hpp>

#include <array>
#include <string_view>

namespace floe::sigv4 {

class chunk_signer {
 public:
  /// `key` from signer::key_cache().get(...) or derive_signing_key(...) for
  /// the same date, region and service as the seed; `amz_date` and
  /// `seed_signature` from the header_signature of the request.
  FLOE_DECL chunk_signer(signing_key const& key, std::string_view amz_date, std::string_view region,
                         std::string_view service, std::string_view seed_signature) noexcept;
  FLOE_DECL ~chunk_signer();
  chunk_signer(chunk_signer const&) = delete;
  chunk_signer& operator=(chunk_signer const&) = delete;

  /// The signature of the next chunk (empty data: the final chunk).
  std::string_view next(std::string_view chunk_data) noexcept {
    return next_hashed(floe::detail::sha256::of(chunk_data));
  }
  /// Same, from the chunk's SHA-256 (when it was hashed while streaming).
  FLOE_DECL std::string_view next_hashed(floe::detail::sha256_digest const& chunk_sha256) noexcept;

 private:
  signing_key key_;
  std::array<char, 16> amz_date_{};
  std::array<char, 128> scope_{};  // "yyyymmdd/region/service/aws4_request", truncated if absurd
  std::size_t scope_size_ = 0;
  std::array<char, 64> previous_{};
};

}  // namespace floe::sigv4

#if defined(FLOE_HEADER_ONLY)
#include <floe/sigv4/impl/chunk_signer.ipp>
#endif
