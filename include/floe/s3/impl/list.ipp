#pragma once
// The listings: ListObjectsV2 and ListBuckets, every page.
#include <floe/s3/client.hpp>

#include <floe/s3/detail/operation.hpp>
#include <floe/s3/detail/request_building.hpp>

namespace floe::s3 {

FLOE_DECL boost::asio::awaitable<result<listing>> client::do_list(std::string const& bucket, list_params const& p) {
  listing out;
  std::string token;
  for (;;) {
    detail::op_spec op;
    op.operation = "ListObjectsV2";
    op.method = "GET";
    op.bucket = bucket;
    detail::list_objects_query(op.query, p, out.objects.size(), token);
    http::request req;
    http::response res;
    auto e = co_await execute(op, req, res);
    if (e.code) co_return e;
    auto page = parse_list_objects_v2(res.body);
    if (!page) co_return detail::with_context(page.error(), op);
    ++out.pages;
    for (auto& o : page->objects) out.objects.push_back(std::move(o));
    for (auto& c : page->common_prefixes) out.common_prefixes.push_back(std::move(c));
    if (!page->truncated) break;
    if (p.max_keys != 0 && out.objects.size() >= p.max_keys) break;
    if (page->next_continuation_token == token) {
      co_return detail::with_context(error(errc::malformed_reply, "ListObjectsV2 returned the same continuation token twice"), op);
    }
    token = std::move(page->next_continuation_token);
  }
  co_return out;
}

FLOE_DECL boost::asio::awaitable<result<bucket_listing>> client::do_list_buckets() {
  bucket_listing out;
  std::string token;
  for (;;) {
    detail::op_spec op;
    op.operation = "ListBuckets";
    op.method = "GET";
    if (!token.empty()) op.query.add("continuation-token", token);
    http::request req;
    http::response res;
    auto e = co_await execute(op, req, res);
    if (e.code) co_return e;
    auto page = parse_list_buckets(res.body);
    if (!page) co_return detail::with_context(page.error(), op);
    ++out.pages;
    if (out.pages == 1) {
      out.owner_id = std::move(page->owner_id);
      out.owner_display_name = std::move(page->owner_display_name);
    }
    for (auto& b : page->buckets) out.buckets.push_back(std::move(b));
    if (page->continuation_token.empty()) break;
    if (page->continuation_token == token)
      co_return detail::with_context(error(errc::malformed_reply, "ListBuckets returned the same continuation token twice"), op);
    token = std::move(page->continuation_token);
  }
  co_return out;
}

}  // namespace floe::s3
