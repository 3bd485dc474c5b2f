#pragma once
// The credentials value every signed request uses, and the small pieces
// around it: a string type for secrets that refuses to print itself, the
// redacted rendering for logs, and ISO 8601 expiry parsing.
//
// Pure: no I/O, no clock (the current time is always a parameter).

#include <floe/config.hpp>
#include <floe/result.hpp>

#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>

namespace floe::credentials {

/// A secret (secret access key, session token). It has no implicit
/// conversion to a string and prints as "<redacted>"; the signer asks for the
/// bytes with reveal(). The bytes are overwritten when the value dies
/// (best effort: copies made by the caller are the caller's).
class secret_string {
 public:
  secret_string() = default;
  explicit secret_string(std::string value) noexcept : value_(std::move(value)) {}
  secret_string(secret_string const&) = default;
  secret_string(secret_string&&) noexcept = default;
  secret_string& operator=(secret_string const& other) {
    if (this != &other) {
      wipe();
      value_ = other.value_;
    }
    return *this;
  }
  secret_string& operator=(secret_string&& other) noexcept {
    if (this != &other) {
      wipe();
      value_ = std::move(other.value_);
      other.wipe();
    }
    return *this;
  }
  ~secret_string() { wipe(); }

  /// The secret itself. Only the signer should need this.
  std::string_view reveal() const noexcept { return value_; }
  bool empty() const noexcept { return value_.empty(); }
  std::size_t size() const noexcept { return value_.size(); }

  /// Compares in time that depends only on the lengths.
  friend bool operator==(secret_string const& a, secret_string const& b) noexcept {
    if (a.value_.size() != b.value_.size()) return false;
    unsigned char diff = 0;
    for (std::size_t i = 0; i < a.value_.size(); ++i)
      diff = static_cast<unsigned char>(diff | (static_cast<unsigned char>(a.value_[i]) ^
                                                static_cast<unsigned char>(b.value_[i])));
    return diff == 0;
  }

 private:
  void wipe() noexcept {
    volatile char* p = value_.data();
    for (std::size_t i = 0; i < value_.size(); ++i) p[i] = 0;
    value_.clear();
  }
  std::string value_;
};

/// Prints "<redacted>" (or "<empty>"), never the secret.
FLOE_DECL std::ostream& operator<<(std::ostream& os, secret_string const& s);

/// One set of AWS credentials and where it came from.
struct credentials {
  std::string access_key_id;
  secret_string secret_access_key;
  secret_string session_token;  // empty for long-term keys
  /// When the set stops working; none for long-term keys.
  std::optional<std::chrono::sys_seconds> expiry;
  /// Where the set came from, for messages: "environment",
  /// "shared credentials file /home/u/.aws/credentials, profile dev", ...
  std::string source;
  /// Numbered by the provider that handed the set out (the refreshing cache
  /// counts its fetches from 1); a request rejected for stale credentials
  /// invalidates exactly this generation. 0: not numbered.
  std::uint64_t generation = 0;

  bool has_session_token() const noexcept { return !session_token.empty(); }
  /// True when the set has an expiry and `now` is at or past it.
  bool expired_at(std::chrono::sys_seconds now) const noexcept { return expiry && now >= *expiry; }

  /// One line, safe for logs: key id prefix, whether a session token is
  /// present, expiry, source and generation. Never the secret or the token.
  FLOE_DECL std::string to_string() const;
};

/// Safe for logs; see credentials::to_string.
FLOE_DECL std::ostream& operator<<(std::ostream& os, credentials const& c);

/// The part of an access key id that may be shown: its first four
/// characters (AKIA: long-term, ASIA: temporary), or fewer for short ids
/// (at most half of it), followed by "…" ("****" in ASCII).
FLOE_DECL std::string redact_key_id(std::string_view access_key_id);

/// Parses an ISO 8601 / RFC 3339 UTC timestamp as AWS writes them:
/// "2024-05-01T12:00:00Z", with optional fractional seconds (dropped) and a
/// "Z", "+hh:mm", "-hh:mm", "+hhmm" or "+hh" zone. 'T'/'t'/' ' separate date
/// and time. Anything else is errc::invalid_argument, and so is a time whose
/// UTC form falls outside the years 0000 to 9999 (so that every accepted
/// time prints with format_iso8601).
FLOE_DECL result<std::chrono::sys_seconds> parse_iso8601(std::string_view text);

/// Renders "YYYY-MM-DDTHH:MM:SSZ"; "out-of-range" for a time outside the
/// years 0000 to 9999.
FLOE_DECL std::string format_iso8601(std::chrono::sys_seconds t);

/// Checks that a credential field (key id, secret, token) can go into an
/// HTTP header: non-empty, printable ASCII, no spaces. `what` names the
/// field and where it came from; the message never includes the value.
FLOE_DECL result<void> check_credential_field(std::string_view value, std::string_view what);

namespace detail {
/// The instants four-digit years can name (0000-01-01T00:00:00Z to
/// 9999-12-31T23:59:59Z): the expiries parsers accept, so that every one
/// prints (format_iso8601) and reads back.
inline constexpr std::chrono::sys_seconds iso8601_first{std::chrono::sys_days{std::chrono::year{0} / 1 / 1}};
inline constexpr std::chrono::sys_seconds iso8601_last{std::chrono::sys_days{std::chrono::year{9999} / 12 / 31} +
                                                       std::chrono::seconds{86399}};

/// `text` made safe to put in a message: control and non-ASCII bytes as
/// \xNN, cut after `max` bytes. For names (profiles, files), never secrets.
FLOE_DECL std::string printable(std::string_view text, std::size_t max = 128);
}  // namespace detail

}  // namespace floe::credentials

#if defined(FLOE_HEADER_ONLY)
#include <floe/credentials/impl/credentials.ipp>
#endif
