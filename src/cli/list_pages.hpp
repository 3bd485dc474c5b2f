#pragma once
// A listing read a page at a time (ls, rm --recursive, and the S3 side of
// cp --recursive, sync and mv): what is under a prefix is never held whole
// (s3::list_pager underneath).

#include "context.hpp"

#include <floe/s3/list_pager.hpp>
#include <floe/s3/replies.hpp>

#include <boost/asio/awaitable.hpp>

#include <cstdint>
#include <string>

namespace floe::cli {

class list_pages {
 public:
  /// Keys under `prefix`, grouped at `delimiter` when it is not empty.
  list_pages(context& x, std::string bucket, std::string prefix, std::string delimiter);
  ~list_pages();
  list_pages(list_pages const&) = delete;
  list_pages& operator=(list_pages const&) = delete;

  /// The next page into `page` (its objects and common prefixes); false
  /// when the listing is over. Each page is logged with -v; a failure is
  /// the caller's to report (as ListObjectsV2 of the prefix). A key or
  /// common prefix the store listed that is not under `prefix` is left out
  /// of the page and reported by name at once (callers cut the prefix off
  /// each key); after the last page the listing then fails, saying how
  /// many were left out, so that the command does not exit 0.
  boost::asio::awaitable<result<bool>> next(s3::list_page& page);

  std::string const& bucket() const noexcept { return bucket_; }
  std::string const& prefix() const noexcept { return prefix_; }

 private:
  // Drops from `page` what is not under the prefix, reporting each.
  void keep_under_prefix(s3::list_page& page);

  context& x_;
  std::string bucket_, prefix_, delimiter_;
  s3::list_pager pager_;
  std::uint64_t foreign_ = 0;  // entries left out
  bool over_ = false;
};

}  // namespace floe::cli
