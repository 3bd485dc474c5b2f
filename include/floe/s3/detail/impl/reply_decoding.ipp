#pragma once
#include <floe/s3/detail/reply_decoding.hpp>

#include <floe/s3/impl/replies.ipp>  // detail::parse_u64

#include <algorithm>
#include <utility>

namespace floe::s3::detail {

inline char ascii_lower(char c) noexcept { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }

FLOE_DECL void fill_info(http::response const& res, object_info& i) {
  // One pass over the reply's fields; the first of each name counts (as
  // fields::get would have it).
  using F = http::fields;
  constexpr std::string_view meta = "x-amz-meta-";
  auto const& h = res.headers;
  std::string_view length;
  unsigned seen = 0;
  auto first = [&seen](unsigned bit) {
    bool const was = (seen & bit) != 0;
    seen |= bit;
    return !was;
  };
  auto known = [&](std::string_view name, std::string_view value) {
    switch (name.size()) {
      case 4:
        if (!F::iequals(name, "ETag")) return false;
        if (first(1)) i.etag.assign(normalize_etag(value));
        return true;
      case 12:
        if (!F::iequals(name, "Content-Type")) return false;
        if (first(2)) i.content_type.assign(value);
        return true;
      case 13:
        if (F::iequals(name, "Last-Modified")) {
          if (first(4)) i.last_modified.assign(value);
          return true;
        }
        if (!F::iequals(name, "Content-Range")) return false;
        if (first(8)) i.content_range.assign(value);
        return true;
      case 14:
        if (!F::iequals(name, "Content-Length")) return false;
        if (first(16)) length = value;
        return true;
      case 16:
        if (!F::iequals(name, "x-amz-version-id")) return false;
        if (first(32)) i.version_id.assign(value);
        return true;
      default:
        return false;
    }
  };
  constexpr std::string_view sum = "x-amz-checksum-";
  for (std::size_t n = 0; n < h.size(); ++n) {
    auto const f = h[n];
    if (known(f.name, f.value) || f.name.size() <= meta.size()) continue;
    // The object's checksum (x-amz-checksum-<algorithm>), the first one.
    if (!i.checksum_algorithm && (f.name[0] == 'x' || f.name[0] == 'X') && F::iequals(f.name.substr(0, sum.size()), sum)) {
      if (auto const a = checksum::algorithm_of_header(f.name)) {
        i.checksum_algorithm = *a;
        i.checksum.assign(f.value);
      }
      continue;
    }
    bool match = true;
    for (std::size_t j = 0; j < meta.size() && match; ++j) match = ascii_lower(f.name[j]) == meta[j];
    if (!match) continue;
    std::string name(f.name.substr(meta.size()));
    for (auto& c : name) c = ascii_lower(c);
    i.metadata.emplace_back(std::move(name), std::string(f.value));
  }
  // The whole object's size: the total of a Content-Range, else the length.
  auto const cr = std::string_view(i.content_range);
  auto const slash = cr.rfind('/');
  if (slash == std::string_view::npos || !parse_u64(cr.substr(slash + 1), i.size)) (void)parse_u64(length, i.size);
}

FLOE_DECL put_result put_result_from(http::response const& res) {
  put_result r;
  r.etag = std::string(normalize_etag(res.headers.get("ETag")));
  r.version_id = std::string(res.headers.get("x-amz-version-id"));
  return r;
}

FLOE_DECL get_result reply_result(http::response& res) {
  get_result r;
  r.not_modified = res.status == 304;
  fill_info(res, r.info);
  r.body = std::move(res.body);
  return r;
}

FLOE_DECL bool range_ignored(http::response const& rs, std::uint64_t start) {
  if (rs.status / 100 != 2) return false;  // not a body for the caller
  if (rs.status != 206) return true;
  auto cr = rs.headers.get("Content-Range");
  std::string const want = "bytes " + std::to_string(start) + "-";
  return cr.substr(0, want.size()) != want;
}

FLOE_DECL error range_error(op_spec const& op, http::response const& rs, std::uint64_t start) {
  error e(errc::malformed_reply, "asked for bytes from " + std::to_string(start) + ", the reply was " +
                                     std::to_string(rs.status) + " " + std::string(rs.headers.get("Content-Range")) +
                                     " (Range ignored?); nothing of it was delivered");
  e.diag.request_id = std::string(rs.headers.get("x-amz-request-id"));
  return with_context(std::move(e), op);
}

FLOE_DECL bool memory_get_wrong(http::response const& rs, bool ranged, std::uint64_t start) {
  return ranged ? range_ignored(rs, start) : rs.status == 206;
}

FLOE_DECL error memory_get_error(op_spec const& op, http::response const& rs, bool ranged, std::uint64_t start) {
  if (ranged) return range_error(op, rs, start);
  return download_refused(op, rs,
                          "a 206 (Content-Range \"" + std::string(rs.headers.get("Content-Range")) +
                              "\") answered a GET that asked for no range: a piece is not the object");
}

FLOE_DECL reply_facts_of_body body_facts(http::response const& rs) {
  reply_facts_of_body f;
  f.status = rs.status;
  f.content_range = rs.headers.get("Content-Range");
  std::uint64_t n = 0;
  if (auto cl = rs.headers.get("Content-Length"); parse_u64(cl, n)) f.content_length = n;
  return f;
}

FLOE_DECL error download_refused(op_spec const& op, http::response const& rs, std::string why) {
  error e(errc::malformed_reply, std::move(why));
  e.diag.http_status = rs.status;
  e.diag.request_id = std::string(rs.headers.get("x-amz-request-id"));
  return with_context(std::move(e), op);
}

FLOE_DECL error checksum_failed(op_spec const& op, http::response const& rs, std::string why, bool tried_again) {
  why += tried_again ? " (twice: the GET was tried again from the start and the bytes were wrong again)"
                     : " (the bytes were changed in transit or in store)";
  error e(errc::checksum_mismatch, std::move(why));
  e.diag.http_status = rs.status;
  e.diag.request_id = std::string(rs.headers.get("x-amz-request-id"));
  return with_context(std::move(e), op);
}

FLOE_DECL void after_resumes(error& e, unsigned attempts, unsigned resumes) {
  e.diag.attempt = attempts;
  if (!e.diag.message.empty()) e.diag.message += "; ";
  e.diag.message += "the download was resumed " + std::to_string(resumes) + (resumes == 1 ? " time" : " times");
}

FLOE_DECL error missing_part_etag(op_spec const& op, http::response const& res, std::size_t number) {
  error bad(errc::malformed_reply, "the reply to part " + std::to_string(number) + " has no ETag");
  bad.diag.http_status = res.status;
  bad.diag.request_id = std::string(res.headers.get("x-amz-request-id"));
  return with_context(std::move(bad), op);
}

FLOE_DECL put_result completed_upload(complete_result& done, http::response const& res,
                                      std::span<completed_part const> parts) {
  put_result r;
  r.etag = std::move(done.etag);
  if (r.etag.empty()) r.etag = std::string(normalize_etag(res.headers.get("ETag")));
  if (r.etag.empty()) r.etag = multipart_etag(parts);
  r.version_id = std::string(res.headers.get("x-amz-version-id"));
  r.parts = static_cast<unsigned>(parts.size());
  return r;
}

FLOE_DECL std::string copy_condition_broken(copy_params const& p, std::string_view copied_etag) {
  auto const got = normalize_etag(copied_etag);
  auto const want = normalize_etag(p.source_if_match);
  auto const unwanted = normalize_etag(p.source_if_none_match);
  if (!want.empty() && want.find('-') == std::string_view::npos && got != want)
    return "source_if_match " + std::string(want);
  if (!unwanted.empty() && got == unwanted) return "source_if_none_match " + std::string(unwanted);
  return {};
}

FLOE_DECL void merge_delete_batch(delete_objects_result& all, std::vector<std::string>& batch,
                                  delete_objects_result& reply) {
  std::vector<std::string_view> failed;
  for (auto const& f : reply.errors) failed.push_back(f.key);
  for (auto& k : batch)
    if (std::find(failed.begin(), failed.end(), std::string_view(k)) == failed.end()) all.deleted.push_back(std::move(k));
  for (auto& f : reply.errors) all.errors.push_back(std::move(f));
}

FLOE_DECL void stop_deleting(delete_objects_result& all, error failure, std::vector<std::string>& batch,
                             std::vector<std::string>& keys, std::size_t i, std::vector<std::string>& singles) {
  all.failure = std::move(failure);
  for (auto& k : batch) all.not_done.push_back(std::move(k));
  for (; i < keys.size(); ++i) all.not_done.push_back(std::move(keys[i]));
  for (auto& k : singles) all.not_done.push_back(std::move(k));
}

}  // namespace floe::s3::detail
