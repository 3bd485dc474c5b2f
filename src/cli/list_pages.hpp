#pragma once
// A listing read a page at a time (ls, rm --recursive, and the S3 side of
// cp --recursive, sync and mv): what is under a prefix is never held whole.

#include "context.hpp"

#include <floe/s3/replies.hpp>

#include <boost/asio/awaitable.hpp>

#include <memory>
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
  /// the caller's to report (as ListObjectsV2 of the prefix).
  boost::asio::awaitable<result<bool>> next(s3::list_page& page);

  std::string const& bucket() const noexcept { return bucket_; }
  std::string const& prefix() const noexcept { return prefix_; }

 private:
  context& x_;
  std::string bucket_, prefix_, delimiter_;
  bool done_ = false;
};

}  // namespace floe::cli
