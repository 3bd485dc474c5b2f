#pragma once
#include <floe/sigv4/signing_key_cache.hpp>

#include <cstring>

namespace floe::sigv4 {

FLOE_DECL signing_key derive_signing_key(std::string_view secret_access_key, std::string_view yyyymmdd,
                                         std::string_view region, std::string_view service) noexcept {
  signing_key k;
  {
    floe::detail::hmac_sha256 h("AWS4", secret_access_key);
    h.update(yyyymmdd);
    k = h.finish();
  }
  k = floe::detail::hmac_sha256::mac(k, region);
  k = floe::detail::hmac_sha256::mac(k, service);
  k = floe::detail::hmac_sha256::mac(k, "aws4_request");
  return k;
}

namespace detail {
inline void hash_field(floe::detail::sha256& h, std::string_view s) noexcept {
  // Length prefixes keep ("ab","c") and ("a","bc") apart.
  std::uint64_t const n = s.size();
  unsigned char len[8];
  for (int i = 0; i < 8; ++i) len[i] = static_cast<unsigned char>(n >> (8 * i));
  h.update(len, sizeof len);
  h.update(s);
}
}  // namespace detail

FLOE_DECL signing_key signing_key_cache::get(std::string_view secret_access_key, std::string_view yyyymmdd,
                                             std::string_view region, std::string_view service) noexcept {
  floe::detail::sha256 h;
  detail::hash_field(h, secret_access_key);
  detail::hash_field(h, yyyymmdd);
  detail::hash_field(h, region);
  detail::hash_field(h, service);
  auto const id = h.finish();

  ++tick_;
  entry* victim = &entries_[0];
  for (auto& e : entries_) {
    if (e.last_used != 0 && e.id == id) {
      e.last_used = tick_;
      ++hits_;
      return e.key;
    }
    if (e.last_used < victim->last_used) victim = &e;
  }
  ++misses_;
  if (victim->last_used == 0) ++size_;
  victim->id = id;
  victim->key = derive_signing_key(secret_access_key, yyyymmdd, region, service);
  victim->last_used = tick_;
  return victim->key;
}

FLOE_DECL void signing_key_cache::clear() noexcept {
  floe::detail::secure_wipe(entries_.data(), sizeof(entry) * entries_.size());
  size_ = 0;
}

}  // namespace floe::sigv4
