// ListObjectsV2 a page at a time.

#include "list_pages.hpp"

#include "op_trace.hpp"

namespace floe::cli {

list_pages::list_pages(context& x, std::string bucket, std::string prefix, std::string delimiter)
    : x_(x), bucket_(std::move(bucket)), prefix_(std::move(prefix)), delimiter_(std::move(delimiter)) {}

list_pages::~list_pages() = default;

boost::asio::awaitable<result<bool>> list_pages::next(s3::list_page& page) {
  page.objects.clear();
  page.common_prefixes.clear();
  if (done_) co_return false;
  s3::list_params p;
  p.prefix = prefix_;
  p.delimiter = delimiter_;
  op_trace trace(x_, "ListObjectsV2", "GET", bucket_, std::nullopt);
  auto r = co_await x_.c.async_list_objects(bucket_, p);
  trace.done(r);
  done_ = true;
  if (!r) co_return r.error();
  page.objects = std::move(r->objects);
  page.common_prefixes = std::move(r->common_prefixes);
  page.truncated = false;
  co_return true;
}

}  // namespace floe::cli
