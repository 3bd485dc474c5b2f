#pragma once
#include <floe/sigv4/chunk_signer.hpp>

#include <algorithm>

namespace floe::sigv4 {

FLOE_DECL chunk_signer::chunk_signer(signing_key const& key, std::string_view amz_date, std::string_view region,
                                     std::string_view service, std::string_view seed_signature) noexcept
    : key_(key) {
  std::copy_n(amz_date.data(), std::min(amz_date.size(), amz_date_.size()), amz_date_.data());
  auto put = [this](std::string_view s) {
    std::size_t const n = std::min(s.size(), scope_.size() - scope_size_);
    std::copy_n(s.data(), n, scope_.data() + scope_size_);
    scope_size_ += n;
  };
  put(amz_date.substr(0, 8));
  put("/");
  put(region);
  put("/");
  put(service);
  put("/aws4_request");
  std::copy_n(seed_signature.data(), std::min(seed_signature.size(), previous_.size()), previous_.data());
}

FLOE_DECL chunk_signer::~chunk_signer() { floe::detail::secure_wipe(key_.data(), key_.size()); }

FLOE_DECL std::string_view chunk_signer::next_hashed(floe::detail::sha256_digest const& chunk_sha256) noexcept {
  char hex[64];
  floe::detail::hmac_sha256 h(key_);
  h.update("AWS4-HMAC-SHA256-PAYLOAD\n");
  h.update(amz_date_.data(), amz_date_.size());
  h.update("\n");
  h.update(scope_.data(), scope_size_);
  h.update("\n");
  h.update(previous_.data(), previous_.size());
  h.update("\n");
  h.update("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  h.update("\n");
  floe::detail::hex_lower(chunk_sha256, hex);
  h.update(hex, sizeof hex);
  floe::detail::hex_lower(h.finish(), previous_.data());
  return {previous_.data(), previous_.size()};
}

}  // namespace floe::sigv4
