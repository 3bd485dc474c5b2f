#pragma once
// Whether a paginated listing may ask for another page, pure: a listing
// ends, with an error, when the store hands back a continuation token seen
// before in the same listing (A, B, A, B, ... would run forever), a
// truncated page without a token (asking again without one starts over), or
// more than a bound of pages in a row with nothing in them. No Asio, no
// sockets.
//
// Memory: 8 bytes of each token seen (a 64-bit hash, not the token) and a
// set's node per page, whatever the tokens' length: a listing of a million
// keys in pages of 1000 keeps a thousand.

#include <floe/config.hpp>
#include <floe/s3/params.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>

namespace floe::s3::detail {

class pagination_guard {
 public:
  /// Pages with no entry in a row before the listing is refused (a store
  /// may answer a few, e.g. after many deleted keys; hundreds mean a loop).
  static constexpr unsigned default_max_empty_pages = 100;

  explicit pagination_guard(unsigned max_empty_pages = default_max_empty_pages) noexcept
      : max_empty_(max_empty_pages == 0 ? default_max_empty_pages : max_empty_pages) {}

  // A truncated page that held `entries` entries (keys and common
  // prefixes) and names `token` for the next one: "" when the listing may
  // ask for it, else why not (what the store did, in words).
  FLOE_DECL std::string next(std::string_view token, std::size_t entries);

  // Pages seen so far.
  std::uint64_t pages() const noexcept { return pages_; }

 private:
  std::unordered_set<std::uint64_t> seen_;
  std::uint64_t pages_ = 0;
  unsigned empty_run_ = 0;
  unsigned max_empty_;
};

// Where a ListObjectsV2 listing read a page at a time stands (list_pager):
// what it lists, the next page's token, the keys listed so far.
struct list_cursor {
  list_cursor(std::string b, list_params p)
      : bucket(std::move(b)), params(std::move(p)), guard(params.max_empty_pages) {}

  std::string bucket;
  list_params params;
  std::string token;        // empty before the first page
  std::uint64_t listed = 0;  // keys so far
  unsigned pages = 0;
  bool done = false;
  pagination_guard guard;
  // The whole listing's deadline (async_list_objects), set once.
  std::optional<std::chrono::steady_clock::time_point> deadline;
  std::chrono::nanoseconds budget{0};
};

}  // namespace floe::s3::detail

#if defined(FLOE_HEADER_ONLY)
#include <floe/s3/detail/impl/pagination.ipp>
#endif
