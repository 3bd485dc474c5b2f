#pragma once
#include <floe/checksum/hasher.hpp>

#include <floe/checksum/crc.hpp>

#include <cstring>

namespace floe::checksum {

// SHA1_Init/Update/Final are deprecated in OpenSSL 3.0 but are the only API
// that does not allocate (see detail/sha256.hpp); the suppression covers
// these calls only.
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif

FLOE_DECL hasher::hasher(algorithm a) noexcept : alg_(a) { reset(); }

FLOE_DECL void hasher::reset() noexcept {
  size_ = 0;
  switch (alg_) {
    case algorithm::sha1: {
      SHA_CTX ctx;
      SHA1_Init(&ctx);
      state_ = ctx;
      break;
    }
    case algorithm::sha256: state_.emplace<floe::detail::sha256>(); break;
    default: state_ = std::uint64_t{0}; break;
  }
}

FLOE_DECL void hasher::update(void const* data, std::size_t size) noexcept {
  size_ += size;
  switch (alg_) {
    case algorithm::crc32: {
      auto& c = std::get<std::uint64_t>(state_);
      c = crc32(static_cast<std::uint32_t>(c), data, size);
      break;
    }
    case algorithm::crc32c: {
      auto& c = std::get<std::uint64_t>(state_);
      c = crc32c(static_cast<std::uint32_t>(c), data, size);
      break;
    }
    case algorithm::crc64nvme: {
      auto& c = std::get<std::uint64_t>(state_);
      c = crc64nvme(c, data, size);
      break;
    }
    case algorithm::sha1:
      if (size != 0) SHA1_Update(&std::get<SHA_CTX>(state_), data, size);
      break;
    case algorithm::sha256: std::get<floe::detail::sha256>(state_).update(data, size); break;
  }
}

FLOE_DECL digest hasher::value() const noexcept {
  switch (alg_) {
    case algorithm::sha1: {
      SHA_CTX copy = std::get<SHA_CTX>(state_);
      digest d;
      d.alg = alg_;
      SHA1_Final(d.storage.data(), &copy);
      return d;
    }
    case algorithm::sha256: {
      floe::detail::sha256 copy = std::get<floe::detail::sha256>(state_);
      auto const full = copy.finish();
      digest d;
      d.alg = alg_;
      std::memcpy(d.storage.data(), full.data(), full.size());
      return d;
    }
    default: return digest::of_crc(alg_, std::get<std::uint64_t>(state_));
  }
}

#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic pop
#endif

}  // namespace floe::checksum
