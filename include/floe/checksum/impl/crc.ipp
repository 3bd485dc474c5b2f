#pragma once
#include <floe/checksum/crc.hpp>

#include <floe/checksum/detail/crc_portable.hpp>
#include <floe/checksum/detail/crc_x86.hpp>
#include <floe/checksum/detail/polynomial.hpp>

#include <atomic>

namespace floe::checksum {

namespace detail {

// Below these sizes the set-up of a folding kernel costs more than it saves.
inline constexpr std::size_t min_fold_pclmul = 64;
inline constexpr std::size_t min_fold_avx512 = 256;

inline constexpr fold_constants crc32_fold = make_fold_constants(crc32_spec);
inline constexpr fold_constants crc32c_fold = make_fold_constants(crc32c_spec);
inline constexpr fold_constants crc64nvme_fold = make_fold_constants(crc64nvme_spec);

// -1: not chosen yet (the CPU is asked on first use).
FLOE_DECL std::atomic<int>& active_slot() noexcept {
  static std::atomic<int> slot{-1};
  return slot;
}

// The raw register (reflected, not inverted) after p[0..n), by `impl`.
// `crc32c_hw`: this is CRC32C, whose short inputs and tails go to the crc32
// instruction on x86 rather than to the table.
template <crc_spec S, class T>
std::uint64_t update_raw(implementation impl, std::uint64_t raw, unsigned char const* p, std::size_t n,
                         [[maybe_unused]] fold_constants const& k, [[maybe_unused]] bool crc32c_hw) noexcept {
#if FLOE_CHECKSUM_X86
  if (impl != implementation::portable && supported(impl)) {
    tail_fn const tail = crc32c_hw ? &crc32c_sse42 : &update_portable64<S, T>;
    if (impl == implementation::avx512 && n >= min_fold_avx512) return fold_avx512(raw, p, n, k, tail);
    if (n >= min_fold_pclmul) return fold_pclmul(raw, p, n, k, tail);
    return tail(raw, p, n);
  }
#endif
  return update_portable<S, T>(static_cast<T>(raw), p, n);
}

}  // namespace detail

FLOE_DECL std::string_view to_string(implementation i) noexcept {
  switch (i) {
    case implementation::portable: return "portable";
    case implementation::pclmul: return "pclmul";
    case implementation::avx512: return "avx512";
  }
  return "unknown";
}

FLOE_DECL bool supported(implementation i) noexcept {
  switch (i) {
    case implementation::portable: return true;
#if FLOE_CHECKSUM_X86
    case implementation::pclmul: return detail::cpu_has_pclmul();
    case implementation::avx512: return detail::cpu_has_avx512();
#else
    default: return false;
#endif
  }
  return false;
}

FLOE_DECL implementation best_implementation() noexcept {
  if (supported(implementation::avx512)) return implementation::avx512;
  if (supported(implementation::pclmul)) return implementation::pclmul;
  return implementation::portable;
}

FLOE_DECL implementation active_implementation() noexcept {
  int v = detail::active_slot().load(std::memory_order_relaxed);
  if (v < 0) {
    v = static_cast<int>(best_implementation());
    int expected = -1;
    // Another thread may have chosen (or forced) one meanwhile: keep it.
    if (!detail::active_slot().compare_exchange_strong(expected, v, std::memory_order_relaxed)) v = expected;
  }
  return static_cast<implementation>(v);
}

FLOE_DECL bool use_implementation(implementation i) noexcept {
  if (!supported(i)) return false;
  detail::active_slot().store(static_cast<int>(i), std::memory_order_relaxed);
  return true;
}

FLOE_DECL std::uint32_t crc32(std::uint32_t crc, void const* data, std::size_t size, implementation i) noexcept {
  auto const raw = detail::update_raw<detail::crc32_spec, std::uint32_t>(
      i, ~crc, static_cast<unsigned char const*>(data), size, detail::crc32_fold, false);
  return ~static_cast<std::uint32_t>(raw);
}

FLOE_DECL std::uint32_t crc32c(std::uint32_t crc, void const* data, std::size_t size, implementation i) noexcept {
  auto const raw = detail::update_raw<detail::crc32c_spec, std::uint32_t>(
      i, ~crc, static_cast<unsigned char const*>(data), size, detail::crc32c_fold, true);
  return ~static_cast<std::uint32_t>(raw);
}

FLOE_DECL std::uint64_t crc64nvme(std::uint64_t crc, void const* data, std::size_t size, implementation i) noexcept {
  return ~detail::update_raw<detail::crc64nvme_spec, std::uint64_t>(
      i, ~crc, static_cast<unsigned char const*>(data), size, detail::crc64nvme_fold, false);
}

FLOE_DECL std::uint32_t crc32(std::uint32_t crc, void const* data, std::size_t size) noexcept {
  return crc32(crc, data, size, active_implementation());
}

FLOE_DECL std::uint32_t crc32c(std::uint32_t crc, void const* data, std::size_t size) noexcept {
  return crc32c(crc, data, size, active_implementation());
}

FLOE_DECL std::uint64_t crc64nvme(std::uint64_t crc, void const* data, std::size_t size) noexcept {
  return crc64nvme(crc, data, size, active_implementation());
}

FLOE_DECL std::uint32_t crc32_combine(std::uint32_t crc_a, std::uint32_t crc_b, std::uint64_t size_b) noexcept {
  return static_cast<std::uint32_t>(detail::shift_register<detail::crc32_spec>(crc_a, size_b)) ^ crc_b;
}

FLOE_DECL std::uint32_t crc32c_combine(std::uint32_t crc_a, std::uint32_t crc_b, std::uint64_t size_b) noexcept {
  return static_cast<std::uint32_t>(detail::shift_register<detail::crc32c_spec>(crc_a, size_b)) ^ crc_b;
}

FLOE_DECL std::uint64_t crc64nvme_combine(std::uint64_t crc_a, std::uint64_t crc_b, std::uint64_t size_b) noexcept {
  return detail::shift_register<detail::crc64nvme_spec>(crc_a, size_b) ^ crc_b;
}

}  // namespace floe::checksum
