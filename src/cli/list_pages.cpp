// ListObjectsV2 a page at a time.

#include "list_pages.hpp"

#include "op_trace.hpp"
#include "output.hpp"
#include "s3_uri.hpp"

#include <algorithm>
#include <optional>

namespace floe::cli {

namespace {

s3::list_params params_of(std::string const& prefix, std::string const& delimiter) {
  s3::list_params p;
  p.prefix = prefix;
  p.delimiter = delimiter;
  return p;
}

}  // namespace

list_pages::list_pages(context& x, std::string bucket, std::string prefix, std::string delimiter)
    : x_(x),
      bucket_(std::move(bucket)),
      prefix_(std::move(prefix)),
      delimiter_(std::move(delimiter)),
      pager_(x.c, bucket_, params_of(prefix_, delimiter_)) {}

list_pages::~list_pages() = default;

void list_pages::keep_under_prefix(s3::list_page& page) {
  auto const foreign = [this](std::string const& key) {
    if (key.compare(0, prefix_.size(), prefix_) == 0) return false;
    ++foreign_;
    error e(errc::malformed_reply, "refusing key '" + key + "': the listing of '" + prefix_ +
                                       "' named it, but it is not under that prefix; skipped");
    report_error(x_.g, e, "ListObjectsV2", resource_of(bucket_, key));
    return true;
  };
  std::erase_if(page.objects, [&](s3::object_summary const& o) { return foreign(o.key); });
  std::erase_if(page.common_prefixes, [&](std::string const& p) { return foreign(p); });
}

boost::asio::awaitable<result<bool>> list_pages::next(s3::list_page& page) {
  page.objects.clear();
  page.common_prefixes.clear();
  if (over_) co_return false;
  if (pager_.done()) {
    over_ = true;
    if (foreign_ == 0) co_return false;
    co_return error(errc::malformed_reply, std::to_string(foreign_) + (foreign_ == 1 ? " entry" : " entries") +
                                               " the store listed not under the prefix were skipped");
  }
  op_trace trace(x_, "ListObjectsV2", "GET", bucket_, std::nullopt);
  auto r = co_await pager_.async_next_page();
  trace.done(r);
  if (!r) {
    if (pager_.done()) over_ = true;
    co_return r.error();
  }
  page = std::move(*r);
  keep_under_prefix(page);
  co_return true;
}

}  // namespace floe::cli
