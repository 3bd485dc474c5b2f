#pragma once
// Whether the replies of a streamed GetObject add up to the object, pure: a
// download succeeds only when the bytes delivered are exactly the object as
// its first reply announced it (or the range asked for). Each reply head is
// shown to accept() before any of its body is delivered, and complete()
// says whether what was delivered is whole. No Asio, no sockets.
//
// The rules: a GET that asked for no range takes a 200 only (a 206 would be
// a piece passed off as the whole); a ranged request takes a 206 only, whose
// Content-Range starts at the first byte not yet delivered and runs to the
// end of what the download needs; a resumed reply's Content-Range total is
// the one the first reply announced (a shrunk or grown object is another
// version); a 206's Content-Length, when sent, is its range's length. Any
// other status (an empty 200 or 204 to a resume) is refused.

#include <floe/config.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace floe::s3::detail {

// A Content-Range of one satisfied range: "bytes FIRST-LAST/TOTAL", TOTAL
// "*" when the server does not say.
struct content_range {
  std::uint64_t first = 0;
  std::uint64_t last = 0;  // inclusive, >= first
  std::optional<std::uint64_t> total;
};

// nullopt unless `v` is exactly that form, with LAST >= FIRST and LAST <
// TOTAL (an unsatisfied "bytes */N" is not a range of bytes).
FLOE_DECL std::optional<content_range> parse_content_range(std::string_view v) noexcept;

// What one reply head says about the body that follows it.
struct reply_facts_of_body {
  unsigned status = 0;
  std::string_view content_range;                 // "" when absent
  std::optional<std::uint64_t> content_length;    // nullopt: chunked or until close
};

class download_check {
 public:
  // `asked`: get_params::range ([first, last], last inclusive and optional).
  using byte_range = std::pair<std::uint64_t, std::optional<std::uint64_t>>;
  explicit download_check(std::optional<byte_range> const& asked) noexcept;

  // The reply to a request sent after `delivered` bytes, carrying Range when
  // `ranged`: "" when its body continues the download, else why not.
  FLOE_DECL std::string accept(reply_facts_of_body const& r, bool ranged, std::uint64_t delivered);

  // After a reply ended with `delivered` bytes delivered in all: "" when
  // the download is whole, else what is missing.
  FLOE_DECL std::string complete(std::uint64_t delivered) const;

  // The object's length as the first reply announced it (nullopt: not said,
  // as in a chunked 200 or a Content-Range total of "*").
  std::optional<std::uint64_t> total() const noexcept { return total_; }

 private:
  std::uint64_t first_ = 0;            // the first byte asked for
  std::optional<std::uint64_t> last_;  // the last byte asked for, if any
  bool ranged_ = false;                // the caller asked for a range
  bool seen_ = false;                  // a reply was accepted
  std::optional<std::uint64_t> total_;
  std::optional<std::uint64_t> end_;   // one past the last byte the download delivers, once known
};

}  // namespace floe::s3::detail

#if defined(FLOE_HEADER_ONLY)
#include <floe/s3/detail/impl/download_check.ipp>
#endif
