#pragma once
// Clock-skew correction from a reply's Date header. Pure: the local time is
// a parameter.

#include <floe/config.hpp>

#include <chrono>
#include <optional>
#include <string_view>

namespace floe::retry {

/// Parses an HTTP date (RFC 9110: IMF-fixdate "Sun, 06 Nov 1994 08:49:37 GMT",
/// and the obsolete RFC 850 and asctime forms). nullopt if malformed.
FLOE_DECL std::optional<std::chrono::sys_seconds> parse_http_date(std::string_view s) noexcept;

/// server time - local time, from a reply's Date header and the local time
/// the reply arrived. Add it to the local clock when signing. nullopt if the
/// header is missing or malformed.
FLOE_DECL std::optional<std::chrono::seconds> skew_from_date(
    std::string_view date_header, std::chrono::system_clock::time_point now) noexcept;

/// AWS rejects signatures more than 15 minutes off; past `threshold`
/// (default 4 minutes, as the SDKs use) the offset is worth applying.
inline bool skew_is_significant(std::chrono::seconds offset,
                                std::chrono::seconds threshold = std::chrono::minutes(4)) noexcept {
  return offset > threshold || offset < -threshold;
}

}  // namespace floe::retry

#if defined(FLOE_HEADER_ONLY)
#include <floe/retry/impl/clock_skew.ipp>
#endif
