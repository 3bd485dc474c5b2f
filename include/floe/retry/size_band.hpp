#pragma once
// The size band of a hedgeable read, pure: which band of the hedge delay's
// key (retry/hedge.hpp) a request falls in before its reply is seen. No
// clock (the caller passes the time), no I/O.
//
// - size_band: bytes to a band (0 below 64 KiB, then one per factor 16).
// - range_length: the bytes a Range header asks for, when it says.
// - size_memory: per (host, operation) the sizes of recent replies; the
//   band of a read whose size is not known (a whole-object GET) is their
//   median's. A HEAD, a List (one band) or a read never seen: band 0.
//
// Not thread-safe: it lives beside its client, on its executor.

#include <floe/config.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace floe::retry {

/// The size band of a request's expected reply: 0 for unknown or under
/// 64 KiB, then one band per factor 16 (64 KiB.., 1 MiB.., 16 MiB.., ...),
/// at most 8.
FLOE_DECL unsigned size_band(std::uint64_t bytes) noexcept;

/// The length a Range header asks for: "bytes=a-b" is b-a+1, "bytes=-n"
/// is n. None for an empty, open ("bytes=a-"), multiple or malformed range.
FLOE_DECL std::optional<std::uint64_t> range_length(std::string_view range) noexcept;

class size_memory {
 public:
  using time_point = std::chrono::steady_clock::time_point;

  /// `window` sizes kept per (host, operation); older than `max_age`: not recent.
  explicit size_memory(unsigned window = 16, std::chrono::seconds max_age = std::chrono::seconds(120)) noexcept
      : window_(window == 0 ? 1 : window), max_age_(max_age) {}

  /// A reply of `bytes` to (host, operation) came at `now`.
  FLOE_DECL void add(std::string_view host, std::string_view operation, std::uint64_t bytes, time_point now);
  /// The band of a read of (host, operation): `expected` (a ranged GET's
  /// length) when known, else the median of recent reply sizes, else 0.
  FLOE_DECL unsigned band(std::string_view host, std::string_view operation, std::optional<std::uint64_t> expected,
                          time_point now) const;

 private:
  struct sample {
    std::uint64_t bytes;
    time_point at;
  };
  struct ring {
    std::vector<sample> s;
    std::size_t next = 0;
  };
  unsigned window_;
  std::chrono::seconds max_age_;
  std::unordered_map<std::string, ring> rings_;
};

}  // namespace floe::retry

#if defined(FLOE_HEADER_ONLY)
#include <floe/retry/impl/size_band.ipp>
#endif
