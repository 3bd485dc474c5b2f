#pragma once
// Object patterns: which (bucket, key) a watcher acts on. Pure.
//
//   auto p = watch::pattern::parse("s3://lake/raw/**/*.parquet");
//   p->matches("lake", "raw/2024/05/a.parquet");   // true
//
// Form: s3://BUCKET/KEY-PATTERN. The bucket is literal. The key pattern is
// split on '/' into segments, matched against the decoded key's segments:
//   *    within a segment: any run of bytes without '/' (also none)
//   **   a whole segment: any number of whole segments. Leading (`**/x`)
//        and in the middle (`a/**/x`) that includes none (`a/x`); trailing
//        (`a/**`) at least one, so it matches what is under a/, not a itself
//   anything else, unicode included, matches itself byte for byte; there
//        is no escape and no other wildcard ('?', '[' are literal)
// A pattern ending in '/' means everything under that prefix (`s3://b/in/`
// is `s3://b/in/**`), and `s3://b` or `s3://b/` every key in the bucket.
// Empty segments are segments like any other: `a//b` matches only a key
// with two slashes there, and `*` matches an empty segment.
// Errors: not s3://, an empty or wildcard bucket, '**' that is not a whole
// segment, a pattern longer than 2048 bytes.

#include <floe/config.hpp>
#include <floe/result.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace floe::watch {

class pattern {
 public:
  /// Parses "s3://bucket/key-pattern". Errors: errc::invalid_argument with
  /// the reason.
  FLOE_DECL static result<pattern> parse(std::string_view text);

  /// The decoded key of an object in `bucket` matches.
  FLOE_DECL bool matches(std::string_view bucket, std::string_view key) const noexcept;

  std::string const& bucket() const noexcept { return bucket_; }
  /// The longest prefix every matching key starts with, where a listing of
  /// its objects starts: "raw/" for raw/**/*.parquet, "raw/2024-" for
  /// raw/2024-*/x, "" for the whole bucket, the key itself for a pattern
  /// without a wildcard.
  FLOE_DECL std::string literal_prefix() const;
  /// The pattern as given.
  std::string const& text() const noexcept { return text_; }

 private:
  std::string text_;
  std::string bucket_;
  std::vector<std::string> segments_;  // "**" is a whole-segment wildcard
};

/// Matches one segment against a segment pattern with '*' (no '/' in either).
FLOE_DECL bool match_segment(std::string_view pat, std::string_view text) noexcept;

/// Any of the patterns matches.
FLOE_DECL bool matches_any(std::vector<pattern> const& patterns, std::string_view bucket, std::string_view key) noexcept;

}  // namespace floe::watch

#if defined(FLOE_HEADER_ONLY)
#include <floe/watch/impl/pattern.ipp>
#endif
