#pragma once
// --exclude and --include, with `aws s3`'s meaning: every object is taken
// unless a pattern says otherwise; the patterns are tried in the order given
// and the last one that matches decides.

#include <string>
#include <string_view>
#include <vector>

namespace floe::cli {

struct filter_rule {
  bool include = false;  // --include (else --exclude)
  std::string pattern;
};

/// Shell-style matching of the whole of `text`, as Python's fnmatch does it
/// on POSIX (which `aws s3` uses): '*' any run of characters, '/' included;
/// '?' one character (one UTF-8 sequence); '[abc]', '[a-z]', '[!abc]' one
/// character of (or not of) the set; a '[' with no closing ']' is itself.
/// Case matters. No escapes: '[*]' matches a literal '*'.
bool glob_match(std::string_view pattern, std::string_view text) noexcept;

/// Whether a path relative to the source or destination root (keys below
/// the prefix, '/'-separated paths below the directory) is taken.
bool included(std::vector<filter_rule> const& rules, std::string_view relative) noexcept;

}  // namespace floe::cli
