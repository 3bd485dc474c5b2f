#pragma once
// Test helpers: a bit-at-a-time CRC straight from the definition (the
// reflected polynomials below are the published ones, written out here and
// not derived from floe's code), and deterministic pseudo-random bytes.

#include <floe/checksum/crc.hpp>

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace floe_test {

/// A reflected CRC, init and xorout all ones, one bit at a time.
inline std::uint64_t bitwise_crc(std::uint64_t reflected_poly, unsigned width, std::string_view s) {
  std::uint64_t const mask = width == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1;
  std::uint64_t r = mask;
  for (unsigned char c : s) {
    r ^= c;
    for (int i = 0; i < 8; ++i) r = (r & 1u) ? (r >> 1) ^ reflected_poly : r >> 1;
  }
  return ~r & mask;
}

inline std::uint32_t ref_crc32(std::string_view s) {
  return static_cast<std::uint32_t>(bitwise_crc(0xEDB88320u, 32, s));
}
inline std::uint32_t ref_crc32c(std::string_view s) {
  return static_cast<std::uint32_t>(bitwise_crc(0x82F63B78u, 32, s));
}
inline std::uint64_t ref_crc64nvme(std::string_view s) { return bitwise_crc(0x9A6C9329AC4BC9B5u, 64, s); }

inline std::string random_bytes(std::size_t n, std::uint32_t seed) {
  std::mt19937 gen(seed);
  std::string s(n, '\0');
  for (auto& c : s) c = static_cast<char>(gen() & 0xffu);
  return s;
}

/// The implementations this CPU can run (portable always; the SIMD ones
/// where present, so that each is compared with the others).
inline std::vector<floe::checksum::implementation> runnable_implementations() {
  std::vector<floe::checksum::implementation> v;
  for (auto i : {floe::checksum::implementation::portable, floe::checksum::implementation::pclmul,
                 floe::checksum::implementation::avx512})
    if (floe::checksum::supported(i)) v.push_back(i);
  return v;
}

}  // namespace floe_test
