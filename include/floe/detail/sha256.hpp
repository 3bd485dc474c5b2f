#pragma once
// Allocation-free SHA-256 and HMAC-SHA256 for the signer's hot path.
//
// OpenSSL 3.0's EVP digests allocate a context on every init and HMAC()
// allocates a dozen times per call; the low-level SHA256_Init/Update/Final
// functions (deprecated in 3.0 but present, and still dispatching to the
// SHA-NI/AVX code) work on a caller-owned SHA256_CTX and never allocate.
// HMAC (RFC 2104) is built by hand on top of them. Everything here is
// noexcept and touches no heap.

#include <floe/config.hpp>

#include <openssl/sha.h>

#include <array>
#include <cstddef>
#include <string_view>

namespace floe::detail {

using sha256_digest = std::array<unsigned char, 32>;

/// Incremental SHA-256 over a stack-resident context.
class sha256 {
 public:
  sha256() noexcept { reset(); }
  FLOE_DECL void reset() noexcept;
  FLOE_DECL void update(void const* data, std::size_t size) noexcept;
  void update(std::string_view s) noexcept { update(s.data(), s.size()); }
  /// The digest; the object must be reset() before it is used again.
  FLOE_DECL sha256_digest finish() noexcept;

  static sha256_digest of(std::string_view s) noexcept {
    sha256 h;
    h.update(s);
    return h.finish();
  }

 private:
  SHA256_CTX ctx_;
};

/// HMAC-SHA256 whose key is the concatenation key_a || key_b (so SigV4's
/// "AWS4" + secret needs no copy). Key material is wiped on destruction.
class hmac_sha256 {
 public:
  FLOE_DECL explicit hmac_sha256(std::string_view key_a, std::string_view key_b = {}) noexcept;
  explicit hmac_sha256(sha256_digest const& key) noexcept
      : hmac_sha256(std::string_view(reinterpret_cast<char const*>(key.data()), key.size())) {}
  FLOE_DECL ~hmac_sha256();
  hmac_sha256(hmac_sha256 const&) = delete;
  hmac_sha256& operator=(hmac_sha256 const&) = delete;

  void update(std::string_view s) noexcept { inner_.update(s); }
  void update(void const* data, std::size_t size) noexcept { inner_.update(data, size); }
  FLOE_DECL sha256_digest finish() noexcept;

  static sha256_digest mac(sha256_digest const& key, std::string_view msg) noexcept {
    hmac_sha256 h(key);
    h.update(msg);
    return h.finish();
  }

 private:
  sha256 inner_;
  std::array<unsigned char, 64> outer_key_;  // K0 xor opad
};

/// Writes the 64 lower-case hex digits of `d` to out[0..64).
inline void hex_lower(sha256_digest const& d, char* out) noexcept {
  constexpr char digits[] = "0123456789abcdef";
  for (std::size_t i = 0; i < d.size(); ++i) {
    out[2 * i] = digits[d[i] >> 4];
    out[2 * i + 1] = digits[d[i] & 0x0f];
  }
}

/// Overwrites `size` bytes at `p` in a way the optimiser keeps.
FLOE_DECL void secure_wipe(void* p, std::size_t size) noexcept;

}  // namespace floe::detail

#if defined(FLOE_HEADER_ONLY)
#include <floe/detail/impl/sha256.ipp>
#endif
