#pragma once
// mv: the source goes only once its copy is done, and only while it is
// still what was copied. Nothing is ever deleted that was not copied.

#include "context.hpp"

#include <boost/asio/awaitable.hpp>

#include <cstdint>
#include <string>

namespace floe::cli {

/// What identifies a local file's contents between two looks.
struct file_stamp {
  std::uint64_t size = 0;
  std::int64_t mtime_ns = 0;
  std::uint64_t inode = 0;
};

/// The stamp of the file at `path` (following links).
result<file_stamp> stamp_of(std::string const& path);

/// Deletes the object a move copied: with If-Match on `etag`, the version
/// copied. A store that ignores If-Match on DeleteObject (Ceph RGW 16.2;
/// see s3::async_delete_if_match) gets a HeadObject first and the delete
/// only when the ETag is still `etag` (what is left is the moment between
/// the two). A source that changed is kept: exit 3, saying so.
boost::asio::awaitable<int> remove_moved_object(context& x, std::string const& bucket, std::string const& key,
                                                std::string const& etag);

/// Deletes the file a move uploaded, only while it is as it was before the
/// upload (`before`); a file that changed meanwhile is kept: exit 3.
int remove_moved_file(context& x, std::string const& path, file_stamp const& before, std::string const& uri);

}  // namespace floe::cli
