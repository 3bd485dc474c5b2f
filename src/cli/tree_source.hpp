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
/// markers) and the key equal to the prefix are left out. A key listed out
/// of order or twice ends the walk with errc::malformed_reply naming it:
/// sync decides what the other side lacks by that order.
std::unique_ptr<tree_source> s3_tree(context& x, std::string bucket, std::string prefix);

/// An entry of a local tree that is not sent: not a regular file (a fifo,
/// a socket, a device, a broken link), or a link to a directory that holds
/// it (followed, it would loop).
struct skipped_entry {
  std::string path;    // as found: the root joined with rel
  std::string rel;     // below the root
  std::string reason;  // "a fifo", "a symbolic link to ..."
  bool subtree = false;  // a directory's place: everything under rel + '/'
};
using skipped_fn = std::function<void(skipped_entry const&)>;

/// The regular files below `dir`, links followed (to files, and to
/// directories as `aws s3` does, a loop cut where a link leads back to a
/// directory it is in); what else is there goes to `skipped`, in walk order.
/// A name read out of order or twice ends the walk with an error, as for S3.
std::unique_ptr<tree_source> local_tree(std::string dir, skipped_fn skipped);

/// `dir` joined with an entry's rel: the entry's local path.
std::string local_path_of(std::string const& dir, std::string const& rel);

}  // namespace floe::cli
