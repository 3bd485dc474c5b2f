#pragma once
// One incremental checksum of any S3 algorithm, chosen at run time:
//
//   checksum::hasher h(checksum::algorithm::crc64nvme);
//   h.update(chunk1); h.update(chunk2);
//   req.headers.set(header_name(h.alg()), h.value().base64());
//
// CRCs go through crc.hpp (SIMD when the CPU has it); SHA-256 is floe's
// allocation-free detail::sha256; SHA-1 is OpenSSL's low-level SHA1_*
// functions on a context held here (no allocation, like detail::sha256).
// Nothing here allocates.

#include <floe/config.hpp>
#include <floe/checksum/algorithm.hpp>
#include <floe/detail/sha256.hpp>

#include <openssl/sha.h>

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <variant>

namespace floe::checksum {

class hasher {
 public:
  FLOE_DECL explicit hasher(algorithm a) noexcept;

  algorithm alg() const noexcept { return alg_; }

  /// Bytes fed since construction or reset().
  std::uint64_t size() const noexcept { return size_; }

  FLOE_DECL void update(void const* data, std::size_t size) noexcept;
  void update(std::string_view s) noexcept { update(s.data(), s.size()); }

  /// The checksum of the bytes so far. The hasher goes on: more update()
  /// calls continue from here.
  FLOE_DECL digest value() const noexcept;

  /// Back to no bytes, same algorithm.
  FLOE_DECL void reset() noexcept;

  /// The checksum of `s` in one call.
  static digest of(algorithm a, std::string_view s) noexcept {
    hasher h(a);
    h.update(s);
    return h.value();
  }

 private:
  algorithm alg_;
  std::uint64_t size_ = 0;
  // The CRC so far (CRCs), or the SHA context.
  std::variant<std::uint64_t, SHA_CTX, floe::detail::sha256> state_;
};

}  // namespace floe::checksum

#if defined(FLOE_HEADER_ONLY)
#include <floe/checksum/impl/hasher.ipp>
#endif
