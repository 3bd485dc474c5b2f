#pragma once
// CopyObject, server side: one CopyObject up to the multipart copy
// threshold, above it a multipart upload of UploadPartCopy ranges
// (transfers.ipp). Copy-source conditions are checked by floe where the
// store ignores them (s3/store_support.hpp).
#include <floe/s3/client.hpp>

#include <floe/s3/detail/operation.hpp>
#include <floe/s3/detail/reply_decoding.hpp>
#include <floe/s3/detail/request_building.hpp>
#include <floe/s3/store_support.hpp>

#include <algorithm>
#include <optional>

namespace floe::s3 {

FLOE_DECL boost::asio::awaitable<result<copy_result>> client::do_copy(copy_params const& p) {
  if (auto why = detail::write_options_problem(p.write); !why.empty())
    co_return detail::invalid("CopyObject", p.bucket + "/" + p.key, std::move(why));
  std::optional<std::uint64_t> size = p.source_size;
  std::uint64_t const part_limit = std::min(cfg_.multipart_copy_threshold, detail::max_single_put);
  object_info src;
  // Copy-source conditions: AWS enforces them on the CopyObject itself;
  // moto ignores x-amz-copy-source-if-match and Ceph RGW 16.2 ignores both.
  // Elsewhere floe checks them with the HEAD below and the copy's ETag after.
  bool const self_check =
      (!p.source_if_match.empty() || !p.source_if_none_match.empty()) && !is_aws_endpoint(addressing_);
  // The request itself must carry the source's type and metadata where the
  // store would not copy them: a REPLACE not given both, and a copy in
  // parts (known here when the caller gave the size; else the HEAD finds
  // the size and the headers together).
  bool const given_all = p.content_type && p.metadata;
  bool const needs_source_headers =
      !given_all && (detail::replaces_metadata(p) || (size && *size > part_limit));
  if (!size || self_check || needs_source_headers) {
    // The source's size decides how it is copied. A failed HEAD says little
    // (no body: a missing key and a missing bucket look alike), so anything
    // but a failed condition goes on to CopyObject, whose error says more —
    // unless the copy needs what the HEAD would have told.
    read_conditions rc{p.source_if_match, p.source_if_none_match};
    auto h = co_await do_head(p.source_bucket, p.source_key, rc);
    if (h && h->not_modified) {
      error e(errc::precondition_failed, "the copy source matches source_if_none_match");
      e.diag.operation = "CopyObject";
      e.diag.resource = p.source_bucket + "/" + p.source_key;
      e.diag.http_status = 304;
      co_return e;
    }
    if (!h && h.error().code == errc::precondition_failed) {
      auto e = h.error();
      e.diag.operation = "CopyObject";
      co_return e;
    }
    if (!h && needs_source_headers) co_return h.error();
    if (h) {
      src = std::move(h->info);
      if (!size) size = src.size;
    }
  }
  if (size && *size > part_limit) {
    // The store copies no headers into a multipart upload: the type and
    // metadata go on CreateMultipartUpload (the copy's, else the source's).
    // Every part is pinned to the version the HEAD saw, or to the caller's
    // source_if_match.
    put_params pp = detail::copied_object_params(p, src);
    std::string const etag = src.etag.empty() ? p.source_if_match : src.etag;
    std::string const no_path;  // a named local: no class temporary in a co_await (GCC 12)
    auto r = co_await do_multipart(p.bucket, p.key, no_path, *size, pp, &p, &etag);
    if (!r) co_return r.error();
    copy_result out;
    out.etag = std::move(r->etag);
    co_return out;
  }
  detail::op_spec op;
  op.operation = "CopyObject";
  op.method = "PUT";
  op.bucket = p.bucket;
  op.key = p.key;
  op.may_200_error = true;
  http::request req;
  detail::set_copy_headers(req, p, src);
  if (!req.headers.valid())
    co_return detail::invalid(op.operation, op.resource(), "a header value (content type or metadata) has CR, LF or NUL");
  op.conditional_read = !p.source_if_match.empty() || !p.source_if_none_match.empty();
  http::response res;
  auto e = co_await execute(op, req, res);
  if (e.code) co_return e;
  if (res.status == 304) {
    // S3 answers a matching copy-source-if-none-match with 412; a 304 from
    // another store means the same: nothing was copied.
    error nm(errc::precondition_failed, "the copy source matches source_if_none_match (304 Not Modified)");
    nm.diag.http_status = 304;
    co_return detail::with_context(std::move(nm), op);
  }
  auto r = parse_copy_result(res.body);
  if (!r) co_return detail::with_context(r.error(), op);
  if (self_check) {
    // A store that ignores the conditions copied whatever the source was by
    // then: say so if that is a version they exclude. (A multipart ETag may
    // be recomputed by the copy: it is not compared.)
    if (auto const why = detail::copy_condition_broken(p, r->etag); !why.empty()) {
      error pf(errc::precondition_failed,
               "the copy source was replaced between floe's check and the copy, and this store ignores copy-source "
               "conditions: the destination WAS written, with ETag " + r->etag + ", which " + why + " excludes");
      co_return detail::with_context(std::move(pf), op);
    }
  }
  co_return std::move(*r);
}

}  // namespace floe::s3
