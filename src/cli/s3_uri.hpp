#pragma once
// Naming objects on the command line: s3://BUCKET/KEY as typed and as
// printed, the "bucket/key" resource an error names, key prefixes and base
// names.

#include <floe/result.hpp>

#include <string>
#include <string_view>

namespace floe::cli {

/// s3://bucket[/key]. The key is everything after the first '/' after the
/// bucket, byte for byte: no percent-decoding, no dot-segment removal.
struct s3_uri {
  std::string bucket;
  std::string key;       // may be empty
  bool has_key = false;  // a '/' followed the bucket
};

bool is_s3_uri(std::string_view s) noexcept;
/// Parses an s3:// URI; the error says what is wrong (no bucket, bad name).
result<s3_uri> parse_s3_uri(std::string_view s);

/// "s3://bucket/key".
std::string uri_of(std::string_view bucket, std::string_view key);
/// "bucket/key", or "bucket" for an empty key.
std::string resource_of(std::string_view bucket, std::string_view key);
/// The key as a prefix: with a trailing '/' unless empty.
std::string dir_prefix(std::string key);
/// What follows the last '/' of a key or a path.
std::string_view base_name(std::string_view path);

}  // namespace floe::cli
