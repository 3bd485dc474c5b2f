#pragma once
#include <floe/s3/detail/pagination.hpp>

namespace floe::s3::detail {

// FNV-1a, 64 bits: the same on every platform (std::hash is not), and
// cheap. A collision would end a listing early with an error, never loop it;
// by chance it needs billions of pages.
inline std::uint64_t token_hash(std::string_view token) noexcept {
  std::uint64_t h = 14695981039346656037ull;
  for (char c : token) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return h;
}

FLOE_DECL std::string pagination_guard::next(std::string_view token, std::size_t entries) {
  ++pages_;
  if (token.empty()) {
    return "page " + std::to_string(pages_) +
           " says the listing is truncated but names no continuation token: asking again would start over";
  }
  if (!seen_.insert(token_hash(token)).second) {
    return "page " + std::to_string(pages_) +
           " hands back a continuation token seen before in this listing: the pages would loop forever";
  }
  empty_run_ = entries == 0 ? empty_run_ + 1 : 0;
  if (empty_run_ >= max_empty_) {
    return std::to_string(empty_run_) +
           " pages in a row held no entry, each with a new continuation token: the listing was stopped";
  }
  return {};
}

}  // namespace floe::s3::detail
