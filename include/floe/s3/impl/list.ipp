#pragma once
// The listings: ListObjectsV2 a page at a time (list_pager) or gathered
// whole, and ListBuckets. Every listing is guarded against pages that would
// never end (detail/pagination.hpp).
#include <floe/s3/client.hpp>

#include <floe/s3/detail/operation.hpp>
#include <floe/s3/detail/pagination.hpp>
#include <floe/s3/detail/request_building.hpp>
#include <floe/s3/list_pager.hpp>

namespace floe::s3 {

namespace detail {

// A listing's errors name the prefix listed too: "bkt/logs/".
inline error listing_error(error e, list_cursor const& cur) {
  if (!cur.params.prefix.empty() && e.diag.resource == cur.bucket) e.diag.resource += "/" + cur.params.prefix;
  return e;
}

}  // namespace detail

FLOE_DECL boost::asio::awaitable<result<list_page>> client::do_list_page(detail::list_cursor& cur) {
  if (cur.done) co_return list_page{};
  detail::op_spec op;
  op.operation = "ListObjectsV2";
  op.method = "GET";
  op.hedgeable = true;
  op.bucket = cur.bucket;
  detail::list_objects_query(op.query, cur.params, cur.listed, cur.token);
  op.deadline = cur.deadline;
  op.budget = cur.budget;
  http::request req;
  http::response res;
  auto e = co_await execute(op, req, res);
  if (e.code) co_return detail::listing_error(std::move(e), cur);
  auto page = parse_list_objects_v2(res.body);
  if (!page) {
    cur.done = true;
    co_return detail::listing_error(detail::with_context(page.error(), op), cur);
  }
  ++cur.pages;
  cur.listed += page->objects.size();
  if (!page->truncated || (cur.params.max_keys != 0 && cur.listed >= cur.params.max_keys)) {
    cur.done = true;
    co_return std::move(*page);
  }
  auto why = cur.guard.next(page->next_continuation_token, page->objects.size() + page->common_prefixes.size());
  if (!why.empty()) {
    cur.done = true;
    error bad(errc::malformed_reply, std::move(why));
    bad.diag.request_id = std::string(res.headers.get("x-amz-request-id"));
    co_return detail::listing_error(detail::with_context(std::move(bad), op), cur);
  }
  cur.token = std::move(page->next_continuation_token);
  co_return std::move(*page);
}

FLOE_DECL boost::asio::awaitable<result<listing>> client::do_list(std::string const& bucket, list_params const& p) {
  listing out;
  detail::list_cursor cur(bucket, p);
  if (p.deadline.count() > 0) {
    cur.deadline = std::chrono::steady_clock::now() + p.deadline;
    cur.budget = p.deadline;
  }
  while (!cur.done) {
    auto page = co_await do_list_page(cur);
    if (!page) co_return page.error();
    for (auto& o : page->objects) out.objects.push_back(std::move(o));
    for (auto& c : page->common_prefixes) out.common_prefixes.push_back(std::move(c));
  }
  out.pages = cur.pages;
  co_return out;
}

FLOE_DECL boost::asio::awaitable<result<bucket_listing>> client::do_list_buckets() {
  bucket_listing out;
  std::string token;
  detail::pagination_guard guard;
  for (;;) {
    detail::op_spec op;
    op.operation = "ListBuckets";
    op.method = "GET";
    op.hedgeable = true;
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
    if (auto why = guard.next(page->continuation_token, page->buckets.size()); !why.empty())
      co_return detail::with_context(error(errc::malformed_reply, std::move(why)), op);
    token = std::move(page->continuation_token);
  }
  co_return out;
}

}  // namespace floe::s3
