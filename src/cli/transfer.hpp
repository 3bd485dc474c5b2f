#pragma once
// One object moved: up from a file or stdin, down to a file or stdout, or
// copied between keys on the server. Each reports its own failure and
// completes with an exit code.

#include "context.hpp"

#include <boost/asio/awaitable.hpp>

#include <cstdint>
#include <string>

namespace floe::cli {

/// One object of a recursive copy, for its --json document.
struct transfer_record {
  std::string source, destination;
  std::uint64_t size = 0;
  std::string etag;
  bool ok = false;
};

/// Local file (or "-": stdin) to S3, with x.cl's content type, metadata and
/// conditions. `rec` (recursive copies): no progress bar, and with --json the
/// result goes into *rec instead of stdout.
boost::asio::awaitable<int> upload_one(context& x, std::string const& local, std::string const& bucket,
                                       std::string const& key, transfer_record* rec);

/// S3 to a local file (written to a temporary file, renamed when complete)
/// or "-" (stdout). `quiet`: no bar (cat, recursive copies); `rec`
/// (recursive copies): with --json the result goes there, not to stdout.
boost::asio::awaitable<int> download_one(context& x, std::string const& bucket, std::string const& key,
                                         std::string const& local, bool quiet, transfer_record* rec);

/// S3 to S3 (CopyObject). `rec` as for upload_one.
boost::asio::awaitable<int> copy_one(context& x, std::string const& source_bucket, std::string const& source_key,
                                     std::string const& bucket, std::string const& key, transfer_record* rec);

}  // namespace floe::cli
