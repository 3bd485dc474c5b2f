#pragma once
#include <floe/s3/detail/download_check.hpp>

#include <floe/s3/impl/replies.ipp>  // detail::parse_u64

#include <algorithm>

namespace floe::s3::detail {

inline std::string range_words(std::uint64_t first, std::uint64_t last) {
  return "bytes " + std::to_string(first) + "-" + std::to_string(last);
}

inline std::string total_words(std::optional<std::uint64_t> t) { return t ? std::to_string(*t) : std::string("*"); }

FLOE_DECL std::optional<content_range> parse_content_range(std::string_view v) noexcept {
  constexpr std::string_view unit = "bytes ";
  if (v.substr(0, unit.size()) != unit) return std::nullopt;
  v.remove_prefix(unit.size());
  auto const dash = v.find('-');
  auto const slash = v.find('/');
  if (dash == std::string_view::npos || slash == std::string_view::npos || slash < dash) return std::nullopt;
  content_range r;
  if (!parse_u64(v.substr(0, dash), r.first) || !parse_u64(v.substr(dash + 1, slash - dash - 1), r.last))
    return std::nullopt;
  if (r.last < r.first) return std::nullopt;
  auto const total = v.substr(slash + 1);
  if (total != "*") {
    std::uint64_t t = 0;
    if (!parse_u64(total, t) || r.last >= t) return std::nullopt;
    r.total = t;
  }
  return r;
}

FLOE_DECL download_check::download_check(std::optional<byte_range> const& asked) noexcept {
  if (!asked) return;
  ranged_ = true;
  first_ = asked->first;
  last_ = asked->second;
}

FLOE_DECL std::string download_check::accept(reply_facts_of_body const& r, bool ranged, std::uint64_t delivered) {
  std::uint64_t const start = first_ + delivered;
  if (!ranged) {
    if (r.status == 206) {
      return "a 206 (Content-Range \"" + std::string(r.content_range) +
             "\") answered a GET that asked for no range: a piece is not the object";
    }
    if (r.status != 200) return "the reply was " + std::to_string(r.status) + ", not 200 with the object";
    total_ = r.content_length;
    end_ = r.content_length;
    seen_ = true;
    return {};
  }
  std::string const asked = "asked for bytes from " + std::to_string(start);
  if (r.status != 206) {
    std::string why = asked + ", the reply was " + std::to_string(r.status);
    if (!r.content_range.empty()) why += " " + std::string(r.content_range);
    return why + (r.status == 200 ? " (Range ignored?)" : ", not 206 with those bytes");
  }
  auto const cr = parse_content_range(r.content_range);
  if (!cr) return asked + ", the 206 carries no usable Content-Range (\"" + std::string(r.content_range) + "\")";
  if (cr->first != start) return asked + ", the reply holds " + range_words(cr->first, cr->last);
  std::optional<std::uint64_t> total = total_;
  if (seen_ && total_ && cr->total != total_) {
    return "the object's length changed during the download: first " + total_words(total_) + " bytes, now " +
           total_words(cr->total) + " (another version; nothing of it was delivered)";
  }
  if (!total) total = cr->total;
  std::uint64_t end = 0;
  if (end_) {
    end = *end_;
  } else if (last_) {
    end = total ? std::min(*last_ + 1, *total) : *last_ + 1;
  } else {
    end = total ? *total : cr->last + 1;
  }
  if (cr->last + 1 != end) {
    return asked + ", the reply holds " + range_words(cr->first, cr->last) + " of " + total_words(cr->total) +
           "; the download needs " + range_words(start, end - 1);
  }
  if (r.content_length && *r.content_length != cr->last - cr->first + 1) {
    return "the 206's Content-Length " + std::to_string(*r.content_length) + " does not match its Content-Range " +
           range_words(cr->first, cr->last);
  }
  total_ = total;
  end_ = end;
  seen_ = true;
  return {};
}

FLOE_DECL std::string download_check::complete(std::uint64_t delivered) const {
  if (!end_) return {};  // nothing announced: a body delimited by its own framing, read to its end
  std::uint64_t const want = *end_ - first_;
  if (delivered == want) return {};
  return "the download ended after " + std::to_string(delivered) + " of " + std::to_string(want) + " bytes";
}

}  // namespace floe::s3::detail
