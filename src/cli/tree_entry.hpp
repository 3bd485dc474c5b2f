#pragma once
// One file or object of a tree (a local directory or an S3 prefix), and
// how sync decides whether it is copied.

#include <cstdint>
#include <string>

namespace floe::cli {

struct tree_entry {
  /// The path below the root, '/'-separated: the key without the prefix,
  /// or the file's path below the directory. Trees are walked in the byte
  /// order of this name (S3's listing order).
  std::string rel;
  std::uint64_t size = 0;
  /// Whole seconds since the epoch: the file's modification time, or the
  /// object's LastModified (S3 keeps whole seconds).
  std::int64_t mtime = 0;
  std::string etag;  // S3 only: as listed, normalised
};

/// How sync compares an entry present on both sides.
enum class compare_mode {
  size_and_time,     // copy when the sizes differ or the source is newer
  size_only,         // --size-only: copy when the sizes differ
  exact_timestamps,  // --exact-timestamps (S3 to local): also when the times differ at all
};

/// Whether sync copies `src` over `dst` (same name on both sides).
/// Modification times compare to the second: S3 lists whole seconds, a
/// download is given its object's time, and an upload or a copy is newer
/// than its source, so an unchanged tree is never sent again.
constexpr bool needs_copy(tree_entry const& src, tree_entry const& dst, compare_mode mode) noexcept {
  if (src.size != dst.size) return true;
  switch (mode) {
    case compare_mode::size_only: return false;
    case compare_mode::exact_timestamps: return src.mtime != dst.mtime;
    case compare_mode::size_and_time: return src.mtime > dst.mtime;
  }
  return true;
}

}  // namespace floe::cli
