// s3:// URIs, resources, prefixes and base names.

#include "s3_uri.hpp"

#include "command_line.hpp"
#include "output.hpp"

#include <floe/s3/addressing.hpp>

#include <algorithm>

namespace floe::cli {

namespace {

constexpr std::string_view scheme = "s3://";

}  // namespace

bool is_s3_uri(std::string_view s) noexcept {
  return s.size() >= scheme.size() && std::equal(scheme.begin(), scheme.end(), s.begin(), [](char a, char b) {
           return a == static_cast<char>((b >= 'A' && b <= 'Z') ? b + 32 : b);
         });
}

result<s3_uri> parse_s3_uri(std::string_view s) {
  if (!is_s3_uri(s)) return usage("expected s3://BUCKET[/KEY], got '" + printable(s) + "'");
  auto rest = s.substr(scheme.size());
  s3_uri u;
  auto slash = rest.find('/');
  u.bucket = std::string(rest.substr(0, slash));
  if (slash != std::string_view::npos) {
    u.has_key = true;
    u.key = std::string(rest.substr(slash + 1));
  }
  if (u.bucket.empty()) return usage("'" + printable(s) + "' names no bucket");
  auto ok = s3::validate_bucket_name(u.bucket);
  if (!ok) return usage("'" + printable(u.bucket) + "': " + ok.error().diag.message);
  if (u.key.size() > s3::max_key_size) return usage("the key is longer than 1024 bytes");
  return u;
}

std::string uri_of(std::string_view bucket, std::string_view key) {
  std::string s = "s3://";
  s += bucket;
  s += '/';
  s += key;
  return s;
}

std::string resource_of(std::string_view bucket, std::string_view key) {
  std::string s(bucket);
  if (!key.empty()) {
    s += '/';
    s += key;
  }
  return s;
}

std::string dir_prefix(std::string key) {
  if (!key.empty() && key.back() != '/') key += '/';
  return key;
}

std::string_view base_name(std::string_view path) {
  auto slash = path.find_last_of('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace floe::cli
