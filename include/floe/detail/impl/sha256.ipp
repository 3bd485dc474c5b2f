#pragma once
#include <floe/detail/sha256.hpp>

#include <openssl/crypto.h>

#include <cstring>

namespace floe::detail {

// The low-level SHA-256 API is deprecated in OpenSSL 3.0 but is the only
// one that does not allocate; the suppression covers these calls only.
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif

FLOE_DECL void sha256::reset() noexcept { SHA256_Init(&ctx_); }

FLOE_DECL void sha256::update(void const* data, std::size_t size) noexcept {
  if (size != 0) SHA256_Update(&ctx_, data, size);
}

FLOE_DECL sha256_digest sha256::finish() noexcept {
  sha256_digest d;
  SHA256_Final(d.data(), &ctx_);
  return d;
}

#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic pop
#endif

FLOE_DECL void secure_wipe(void* p, std::size_t size) noexcept { OPENSSL_cleanse(p, size); }

FLOE_DECL hmac_sha256::hmac_sha256(std::string_view key_a, std::string_view key_b) noexcept {
  // K0: the key itself when it fits one block, else its digest; zero padded.
  std::array<unsigned char, 64> k0{};
  // Written so that no sum can wrap (and GCC can see that).
  if (key_a.size() <= k0.size() && key_b.size() <= k0.size() - key_a.size()) {
    if (!key_a.empty()) std::memcpy(k0.data(), key_a.data(), key_a.size());
    if (!key_b.empty()) std::memcpy(k0.data() + key_a.size(), key_b.data(), key_b.size());
  } else {
    sha256 h;
    h.update(key_a);
    h.update(key_b);
    auto const d = h.finish();
    std::memcpy(k0.data(), d.data(), d.size());
  }
  std::array<unsigned char, 64> inner_key;
  for (std::size_t i = 0; i < k0.size(); ++i) {
    inner_key[i] = static_cast<unsigned char>(k0[i] ^ 0x36u);
    outer_key_[i] = static_cast<unsigned char>(k0[i] ^ 0x5cu);
  }
  inner_.update(inner_key.data(), inner_key.size());
  secure_wipe(k0.data(), k0.size());
  secure_wipe(inner_key.data(), inner_key.size());
}

FLOE_DECL hmac_sha256::~hmac_sha256() { secure_wipe(outer_key_.data(), outer_key_.size()); }

FLOE_DECL sha256_digest hmac_sha256::finish() noexcept {
  auto const inner = inner_.finish();
  sha256 outer;
  outer.update(outer_key_.data(), outer_key_.size());
  outer.update(inner.data(), inner.size());
  return outer.finish();
}

}  // namespace floe::detail
