#pragma once
#include <floe/watch/pattern.hpp>

namespace floe::watch {

namespace detail {

inline constexpr std::size_t max_pattern_bytes = 2048;

// The next segment of `s` from `pos` (to the next '/' or the end); pos is
// moved past it and its '/' (npos after the last one).
inline std::string_view next_segment(std::string_view s, std::size_t& pos) noexcept {
  auto const slash = s.find('/', pos);
  std::string_view const seg = s.substr(pos, slash == std::string_view::npos ? std::string_view::npos : slash - pos);
  pos = slash == std::string_view::npos ? std::string_view::npos : slash + 1;
  return seg;
}

}  // namespace detail

FLOE_DECL bool match_segment(std::string_view pat, std::string_view text) noexcept {
  // Greedy with one back-track point: the last '*' seen and where its match
  // ends. Linear in practice, O(|pat| x |text|) at worst.
  std::size_t p = 0, t = 0;
  std::size_t star = std::string_view::npos, star_t = 0;
  while (t < text.size()) {
    if (p < pat.size() && pat[p] == '*') {
      star = p++;
      star_t = t;
    } else if (p < pat.size() && pat[p] == text[t]) {
      ++p;
      ++t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++star_t;
    } else {
      return false;
    }
  }
  while (p < pat.size() && pat[p] == '*') ++p;
  return p == pat.size();
}

FLOE_DECL result<pattern> pattern::parse(std::string_view text) {
  auto bad = [&](std::string why) {
    return error(errc::invalid_argument, "pattern \"" + std::string(text.substr(0, 200)) + "\": " + why);
  };
  if (text.size() > detail::max_pattern_bytes) return bad("longer than 2048 bytes");
  if (text.substr(0, 5) != "s3://") return bad("not of the form s3://BUCKET/KEY-PATTERN");
  std::string_view rest = text.substr(5);
  auto const slash = rest.find('/');
  std::string_view const bucket = rest.substr(0, slash);
  if (bucket.empty()) return bad("no bucket");
  if (bucket.find('*') != std::string_view::npos) return bad("the bucket is literal: no '*' in it");
  std::string_view key = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);

  pattern p;
  p.text_ = std::string(text);
  p.bucket_ = std::string(bucket);
  std::string expanded(key);
  if (expanded.empty() || expanded.back() == '/') expanded += "**";  // everything under the prefix
  std::size_t pos = 0;
  while (pos != std::string_view::npos) {
    auto const seg = detail::next_segment(expanded, pos);
    if (seg != "**" && seg.find("**") != std::string_view::npos)
      return bad("'**' must be a whole path segment (a/**/b), not part of one");
    if (seg == "**" && !p.segments_.empty() && p.segments_.back() == "**") continue;  // a/**/**/b is a/**/b
    p.segments_.emplace_back(seg);
  }
  // A trailing ** matches at least one segment: one segment of any content,
  // then any number more. Every other ** matches any number, none included.
  if (p.segments_.size() > 1 && p.segments_.back() == "**") p.segments_.insert(p.segments_.end() - 1, "*");
  if (p.segments_.size() == 1 && p.segments_.back() == "**") p.segments_.insert(p.segments_.begin(), "*");
  return p;
}

FLOE_DECL std::string pattern::literal_prefix() const {
  std::string out;
  for (std::size_t i = 0; i < segments_.size(); ++i) {
    auto const star = segments_[i].find('*');
    if (star != std::string::npos) {
      out.append(segments_[i], 0, star);
      break;
    }
    out += segments_[i];
    if (i + 1 < segments_.size()) out += '/';
  }
  return out;
}

FLOE_DECL bool pattern::matches(std::string_view bucket, std::string_view key) const noexcept {
  if (bucket != bucket_) return false;
  // Segment-level wildcard matching, the same greedy scheme as
  // match_segment with '**' as the star and match_segment as the test. A
  // position is the byte offset where a key segment starts; `done` is past
  // the last one.
  std::size_t const done = key.size() + 1;
  auto segment_at = [&](std::size_t k) {
    auto const slash = key.find('/', k);
    return key.substr(k, slash == std::string_view::npos ? std::string_view::npos : slash - k);
  };
  auto after = [&](std::size_t k) {
    auto const slash = key.find('/', k);
    return slash == std::string_view::npos ? done : slash + 1;
  };
  std::size_t const n = segments_.size();
  std::size_t p = 0, k = 0;
  std::size_t star = std::string_view::npos, star_k = 0;
  while (k != done) {
    if (p < n && segments_[p] == "**") {
      star = p++;
      star_k = k;
    } else if (p < n && match_segment(segments_[p], segment_at(k))) {
      ++p;
      k = after(k);
    } else if (star != std::string_view::npos) {
      p = star + 1;  // the ** takes one more segment
      star_k = after(star_k);
      k = star_k;
    } else {
      return false;
    }
  }
  while (p < n && segments_[p] == "**") ++p;
  return p == n;
}

FLOE_DECL bool matches_any(std::vector<pattern> const& patterns, std::string_view bucket, std::string_view key) noexcept {
  for (auto const& p : patterns)
    if (p.matches(bucket, key)) return true;
  return false;
}

}  // namespace floe::watch
