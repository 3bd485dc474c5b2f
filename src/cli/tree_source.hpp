#pragma once
// The files of a local directory or the objects under an S3 prefix, one at
// a time in name order (the byte order of tree_entry::rel, which is S3's
// listing order), so that two trees can be compared by walking both at
// once. Neither is ever held whole: S3 is read a page at a time, a
// directory one level at a time.

#include "context.hpp"
#include "tree_entry.hpp"

#include <boost/asio/awaitable.hpp>

#include <functional>
#include <memory>
#include <string>

namespace floe::cli {

class tree_source {
 public:
  virtual ~tree_source() = default;
  /// The next entry; false when there are no more. A failure is the
  /// caller's to report (it names the operation: ListObjectsV2, or the
  /// directory that could not be read).
  virtual boost::asio::awaitable<result<bool>> next(tree_entry& out) = 0;
};

/// The objects under `prefix` (ListObjectsV2 without a delimiter), rel being
/// the key without the prefix. Zero-byte keys ending in '/' (directory
/// markers) and the key equal to the prefix are left out.
std::unique_ptr<tree_source> s3_tree(context& x, std::string bucket, std::string prefix);

/// An entry of a local tree that is not sent: not a regular file (a fifo,
/// a socket, a device, a link to a directory, a broken link).
using skipped_fn = std::function<void(std::string const& path, std::string const& reason)>;

/// The regular files (and links to them) below `dir`; what else is there
/// goes to `skipped`. Links to directories are not followed (they can loop).
std::unique_ptr<tree_source> local_tree(std::string dir, skipped_fn skipped);

/// `dir` joined with an entry's rel: the entry's local path.
std::string local_path_of(std::string const& dir, std::string const& rel);

}  // namespace floe::cli
