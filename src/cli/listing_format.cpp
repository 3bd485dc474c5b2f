// `ls` text lines.

#include "listing_format.hpp"

#include "output.hpp"

#include <floe/credentials/credentials.hpp>

#include <cmath>
#include <cstdio>
#include <ctime>

namespace floe::cli {

std::optional<std::int64_t> epoch_of_iso8601(std::string_view text) {
  auto t = credentials::parse_iso8601(text);
  if (!t) return std::nullopt;
  return static_cast<std::int64_t>(t->time_since_epoch().count());
}

std::string local_time_text(std::int64_t epoch_seconds) {
  std::time_t const t = static_cast<std::time_t>(epoch_seconds);
  std::tm tm{};
  if (::localtime_r(&t, &tm) == nullptr) return std::string(19, '?');
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02d %02d:%02d:%02d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec);
  return buf;
}

std::string aws_human_size(std::uint64_t bytes) {
  if (bytes == 1) return "1 Byte";
  if (bytes < 1024) return std::to_string(bytes) + " Bytes";
  static constexpr char const* units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double const value = static_cast<double>(bytes);
  double scale = 1024.0;
  // The first unit in which the value, rounded, stays under 1024 of it.
  for (std::size_t i = 0; i < std::size(units); ++i, scale *= 1024.0) {
    if (std::round(value / scale) < 1024.0 || i + 1 == std::size(units)) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.1f %s", value / scale, units[i]);
      return buf;
    }
  }
  return std::to_string(bytes) + " Bytes";
}

std::string_view listed_name(std::string_view key, bool recursive) {
  if (recursive) return key;
  auto const slash = key.find_last_of('/');
  return slash == std::string_view::npos ? key : key.substr(slash + 1);
}

std::string object_line(std::string_view last_modified, std::uint64_t size, std::string_view name, bool human) {
  auto const t = epoch_of_iso8601(last_modified);
  std::string line = t ? local_time_text(*t) : printable(last_modified);
  if (line.size() < 19) line.resize(19, ' ');
  std::string sz = human ? aws_human_size(size) : std::to_string(size);
  line += ' ';
  if (sz.size() < 10) line.append(10 - sz.size(), ' ');
  line += sz;
  line += ' ';
  line += printable(name);
  line += '\n';
  return line;
}

std::string prefix_line(std::string_view common_prefix) {
  std::string_view p = common_prefix;
  if (!p.empty() && p.back() == '/') p.remove_suffix(1);
  auto const slash = p.find_last_of('/');
  if (slash != std::string_view::npos) p = p.substr(slash + 1);
  std::string line(27, ' ');
  line += "PRE ";
  line += printable(p);
  line += "/\n";
  return line;
}

std::string bucket_line(std::string_view creation_date, std::string_view name) {
  auto const t = epoch_of_iso8601(creation_date);
  std::string line = t ? local_time_text(*t) : printable(creation_date);
  line += ' ';
  line += printable(name);
  line += '\n';
  return line;
}

std::string summary_lines(std::uint64_t objects, std::uint64_t bytes, bool human) {
  return "\nTotal Objects: " + std::to_string(objects) + "\n   Total Size: " +
         (human ? aws_human_size(bytes) : std::to_string(bytes)) + "\n";
}

}  // namespace floe::cli
