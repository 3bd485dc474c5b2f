#pragma once
// What a verb runs with, and how it fails: the client, the command line,
// and the one place a failure is reported and becomes an exit code.

#include "command_line.hpp"

#include <floe/error.hpp>
#include <floe/s3/client.hpp>

#include <string>
#include <string_view>
#include <vector>

// GCC 12 misreads the sized operator delete of Asio's coroutine frames (a
// false positive). Every coroutine of the CLI takes a context: silenced here
// for all of them.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

namespace floe::cli {

struct context {
  s3::client& c;
  command_line const& cl;
  global_options const& g;
  // Trees (cp --recursive, sync, mv): every failure, for the --json
  // document's "errors".
  std::vector<error>* errors = nullptr;
  // put: an upload alone prints its ETag (not "upload: ... to ...").
  bool print_etag = false;
  // Many objects at once (tree_transfer): no progress bars.
  bool many = false;
};

/// Reports a usage error of the verb being run; returns exit_usage.
int usage_error(context& x, std::string_view message);

/// Reports `e` (not under --quiet), naming `operation` and `resource` when
/// it does not, and returns its exit code; keeps it in x.errors when that
/// is set.
int fail(context& x, error e, std::string_view operation, std::string_view resource);

/// A failed system call (errno `err`) as an error saying what was being done.
error system_error_of(int err, std::string message);

}  // namespace floe::cli
