#pragma once
// SigV4 signing keys and a small cache of them.
//
// The signing key is HMAC(HMAC(HMAC(HMAC("AWS4" + secret, yyyymmdd), region),
// service), "aws4_request"): four HMACs that only change when the secret, the
// day, the region or the service does. The cache keeps up to `capacity` of
// them, keyed by a SHA-256 digest of (secret, date, region, service): the
// secret itself is never stored. Eviction is least-recently-used. Secrets
// that rotate (hourly for STS / IRSA credentials) simply miss and push out
// the oldest entry.
//
// Not thread-safe: keep one per client or per strand (floe::sigv4::signer
// owns one).

#include <floe/config.hpp>
#include <floe/detail/sha256.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace floe::sigv4 {

using signing_key = floe::detail::sha256_digest;

/// Derives the signing key without any cache. `yyyymmdd` is the date part of
/// X-Amz-Date (UTC).
FLOE_DECL signing_key derive_signing_key(std::string_view secret_access_key, std::string_view yyyymmdd,
                                         std::string_view region, std::string_view service) noexcept;

class signing_key_cache {
 public:
  static constexpr std::size_t capacity = 8;

  signing_key_cache() = default;
  ~signing_key_cache() { clear(); }
  signing_key_cache(signing_key_cache const&) = delete;
  signing_key_cache& operator=(signing_key_cache const&) = delete;

  /// The signing key for these inputs, derived on a miss. Never allocates.
  FLOE_DECL signing_key get(std::string_view secret_access_key, std::string_view yyyymmdd,
                            std::string_view region, std::string_view service) noexcept;

  /// Forgets every key (wiping them).
  FLOE_DECL void clear() noexcept;

  std::size_t size() const noexcept { return size_; }
  std::uint64_t hits() const noexcept { return hits_; }
  std::uint64_t misses() const noexcept { return misses_; }

 private:
  struct entry {
    floe::detail::sha256_digest id{};  // SHA-256 of the length-prefixed inputs
    signing_key key{};
    std::uint64_t last_used = 0;  // 0: empty slot
  };
  std::array<entry, capacity> entries_{};
  std::size_t size_ = 0;
  std::uint64_t tick_ = 0;
  std::uint64_t hits_ = 0;
  std::uint64_t misses_ = 0;
};

}  // namespace floe::sigv4

#if defined(FLOE_HEADER_ONLY)
#include <floe/sigv4/impl/signing_key_cache.ipp>
#endif
