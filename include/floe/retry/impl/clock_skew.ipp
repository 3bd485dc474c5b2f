#pragma once
#include <floe/retry/clock_skew.hpp>

#include <array>

namespace floe::retry {

namespace detail {

struct date_cursor {
  std::string_view s;
  std::size_t i = 0;

  bool eat(char c) noexcept {
    if (i < s.size() && s[i] == c) {
      ++i;
      return true;
    }
    return false;
  }
  void spaces() noexcept {
    while (i < s.size() && s[i] == ' ') ++i;
  }
  // Exactly `min`..`max` digits.
  bool number(int& out, std::size_t min, std::size_t max) noexcept {
    std::size_t n = 0;
    out = 0;
    while (i < s.size() && n < max && s[i] >= '0' && s[i] <= '9') {
      out = out * 10 + (s[i] - '0');
      ++i;
      ++n;
    }
    return n >= min;
  }
  bool word(std::string_view& out) noexcept {
    std::size_t const b = i;
    while (i < s.size() && ((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z'))) ++i;
    out = s.substr(b, i - b);
    return i > b;
  }
  bool month(int& m) noexcept {
    static constexpr std::array<std::string_view, 12> names{"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                            "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    std::string_view w;
    if (!word(w)) return false;
    for (std::size_t k = 0; k < names.size(); ++k)
      if (w == names[k]) {
        m = static_cast<int>(k) + 1;
        return true;
      }
    return false;
  }
  bool time(int& h, int& mi, int& sec) noexcept {
    return number(h, 2, 2) && eat(':') && number(mi, 2, 2) && eat(':') && number(sec, 2, 2) && h < 24 &&
           mi < 60 && sec <= 60;
  }
  bool at_end() noexcept {
    spaces();
    return i == s.size();
  }
};

inline std::optional<std::chrono::sys_seconds> make_time(int y, int mo, int d, int h, int mi, int sec) noexcept {
  using namespace std::chrono;
  year_month_day const ymd{year{y}, month{static_cast<unsigned>(mo)}, day{static_cast<unsigned>(d)}};
  if (!ymd.ok()) return std::nullopt;
  return sys_days{ymd} + hours{h} + minutes{mi} + seconds{sec};
}

}  // namespace detail

FLOE_DECL std::optional<std::chrono::sys_seconds> parse_http_date(std::string_view s) noexcept {
  detail::date_cursor c{s};
  c.spaces();
  std::string_view wday;
  if (!c.word(wday)) return std::nullopt;
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0;
  if (c.eat(',')) {
    c.spaces();
    if (!c.number(d, 1, 2)) return std::nullopt;
    if (c.eat(' ')) {
      // IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT"
      if (!c.month(mo) || !c.eat(' ') || !c.number(y, 4, 4) || !c.eat(' ')) return std::nullopt;
    } else if (c.eat('-')) {
      // RFC 850: "Sunday, 06-Nov-94 08:49:37 GMT"
      if (!c.month(mo) || !c.eat('-') || !c.number(y, 2, 4) || !c.eat(' ')) return std::nullopt;
      if (y < 100) y += y < 70 ? 2000 : 1900;
    } else {
      return std::nullopt;
    }
    if (!c.time(h, mi, sec)) return std::nullopt;
    c.spaces();
    std::string_view zone;
    if (!c.word(zone) || (zone != "GMT" && zone != "UTC") || !c.at_end()) return std::nullopt;
  } else {
    // asctime: "Sun Nov  6 08:49:37 1994"
    c.spaces();
    if (!c.month(mo)) return std::nullopt;
    c.spaces();
    if (!c.number(d, 1, 2) || !c.eat(' ') || !c.time(h, mi, sec) || !c.eat(' ') || !c.number(y, 4, 4) ||
        !c.at_end())
      return std::nullopt;
  }
  return detail::make_time(y, mo, d, h, mi, sec == 60 ? 59 : sec);
}

FLOE_DECL std::optional<std::chrono::seconds> skew_from_date(std::string_view date_header,
                                                             std::chrono::system_clock::time_point now) noexcept {
  auto const server = parse_http_date(date_header);
  if (!server) return std::nullopt;
  auto const local = std::chrono::time_point_cast<std::chrono::seconds>(now);
  return *server - local;
}

}  // namespace floe::retry
