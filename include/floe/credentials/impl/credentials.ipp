#pragma once
#include <floe/credentials/credentials.hpp>

#include <ostream>

namespace floe::credentials {

FLOE_DECL std::ostream& operator<<(std::ostream& os, secret_string const& s) {
  return os << (s.empty() ? "<empty>" : "<redacted>");
}

FLOE_DECL std::string redact_key_id(std::string_view id) {
  std::size_t shown = id.size() / 2;
  if (shown > 4) shown = 4;
  std::string out(id.substr(0, shown));
  // Only printable ASCII is shown, so a hostile id cannot smuggle a line break into a log.
  for (auto& c : out)
    if (c < 0x21 || c > 0x7e) c = '?';
  out += "****";
  return out;
}

FLOE_DECL std::string credentials::to_string() const {
  std::string s = "credentials{key ";
  s += access_key_id.empty() ? std::string("<none>") : redact_key_id(access_key_id);
  s += has_session_token() ? ", session token" : ", no session token";
  if (expiry) {
    s += ", expires ";
    s += format_iso8601(*expiry);
  }
  if (!source.empty()) {
    s += ", from ";
    s += source;
  }
  if (generation != 0) {
    s += ", generation ";
    s += std::to_string(generation);
  }
  s += "}";
  return s;
}

FLOE_DECL std::ostream& operator<<(std::ostream& os, credentials const& c) { return os << c.to_string(); }

namespace detail {
inline bool parse_digits(std::string_view s, std::size_t pos, std::size_t n, int& out) noexcept {
  if (pos + n > s.size()) return false;
  int v = 0;
  for (std::size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
  }
  out = v;
  return true;
}
}  // namespace detail

FLOE_DECL result<std::chrono::sys_seconds> parse_iso8601(std::string_view s) {
  using namespace std::chrono;
  auto bad = [&] {
    return error(errc::invalid_argument,
                 "not an ISO 8601 UTC timestamp (expected e.g. 2024-05-01T12:00:00Z)");
  };
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0;
  if (s.size() < 20) return bad();
  if (!detail::parse_digits(s, 0, 4, y) || s[4] != '-' || !detail::parse_digits(s, 5, 2, mo) || s[7] != '-' ||
      !detail::parse_digits(s, 8, 2, d))
    return bad();
  if (s[10] != 'T' && s[10] != 't' && s[10] != ' ') return bad();
  if (!detail::parse_digits(s, 11, 2, h) || s[13] != ':' || !detail::parse_digits(s, 14, 2, mi) || s[16] != ':' ||
      !detail::parse_digits(s, 17, 2, sec))
    return bad();
  std::size_t pos = 19;
  if (pos < s.size() && (s[pos] == '.' || s[pos] == ',')) {
    ++pos;
    std::size_t start = pos;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') ++pos;
    if (pos == start) return bad();
  }
  if (pos >= s.size()) return bad();  // a zone is required: local time is meaningless here
  int offset_minutes = 0;
  if (s[pos] == 'Z' || s[pos] == 'z') {
    ++pos;
  } else if (s[pos] == '+' || s[pos] == '-') {
    int sign = s[pos] == '-' ? -1 : 1;
    ++pos;
    int oh = 0, om = 0;
    if (!detail::parse_digits(s, pos, 2, oh)) return bad();
    pos += 2;
    if (pos < s.size()) {
      if (s[pos] == ':') ++pos;
      if (!detail::parse_digits(s, pos, 2, om)) return bad();
      pos += 2;
    }
    if (oh > 23 || om > 59) return bad();
    offset_minutes = sign * (oh * 60 + om);
  } else {
    return bad();
  }
  if (pos != s.size()) return bad();
  if (mo < 1 || mo > 12 || h > 23 || mi > 59 || sec > 60) return bad();
  year_month_day ymd{year{y}, month{static_cast<unsigned>(mo)}, day{static_cast<unsigned>(d)}};
  if (!ymd.ok()) return bad();
  if (sec == 60) sec = 59;  // a leap second: close enough for an expiry
  sys_seconds t = sys_days{ymd} + hours{h} + minutes{mi} + seconds{sec} - minutes{offset_minutes};
  if (t < detail::iso8601_first || t > detail::iso8601_last)
    return error(errc::invalid_argument, "an ISO 8601 time whose UTC form falls outside the years 0000 to 9999");
  return t;
}

FLOE_DECL std::string format_iso8601(std::chrono::sys_seconds t) {
  using namespace std::chrono;
  // Checked before the calendar conversion, which wraps for far-off times.
  if (t < detail::iso8601_first || t > detail::iso8601_last) return "out-of-range";
  auto days = floor<std::chrono::days>(t);
  year_month_day ymd{days};
  hh_mm_ss<seconds> hms{t - days};
  char buf[32];
  auto two = [](char* p, long v) {
    p[0] = static_cast<char>('0' + (v / 10) % 10);
    p[1] = static_cast<char>('0' + v % 10);
  };
  int const y = static_cast<int>(ymd.year());
  buf[0] = static_cast<char>('0' + y / 1000);
  buf[1] = static_cast<char>('0' + (y / 100) % 10);
  two(buf + 2, y % 100);
  buf[4] = '-';
  two(buf + 5, static_cast<unsigned>(ymd.month()));
  buf[7] = '-';
  two(buf + 8, static_cast<unsigned>(ymd.day()));
  buf[10] = 'T';
  two(buf + 11, hms.hours().count());
  buf[13] = ':';
  two(buf + 14, hms.minutes().count());
  buf[16] = ':';
  two(buf + 17, hms.seconds().count());
  buf[19] = 'Z';
  return std::string(buf, 20);
}

FLOE_DECL result<void> check_credential_field(std::string_view value, std::string_view what) {
  if (value.empty()) return error(errc::invalid_argument, std::string(what) + " is empty");
  for (char c : value) {
    auto u = static_cast<unsigned char>(c);
    if (u == '\n' || u == '\r')
      return error(errc::invalid_argument,
                   std::string(what) +
                       " spans more than one line (in a shared file, an indented line continues the setting above it)");
    if (u == ' ' || u == '\t')
      return error(errc::invalid_argument,
                   std::string(what) + " contains whitespace (shared files have no inline comments: "
                                       "'key = value # note' makes the note part of the value)");
    if (u < 0x21 || u > 0x7e)
      return error(errc::invalid_argument, std::string(what) + " contains a control or non-ASCII character");
  }
  return {};
}

namespace detail {
FLOE_DECL std::string printable(std::string_view text, std::size_t max) {
  static constexpr char hex[] = "0123456789ABCDEF";
  std::string out;
  std::size_t n = text.size() < max ? text.size() : max;
  for (std::size_t i = 0; i < n; ++i) {
    auto u = static_cast<unsigned char>(text[i]);
    if (u >= 0x20 && u < 0x7f && u != '\\') {
      out += static_cast<char>(u);
    } else {
      out += "\\x";
      out += hex[u >> 4];
      out += hex[u & 15];
    }
  }
  if (n < text.size()) out += "...";
  return out;
}
}  // namespace detail

}  // namespace floe::credentials
