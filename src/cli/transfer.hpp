#pragma once
// One object moved: up from a file or stdin, down to a file or stdout, or
// copied between keys on the server. Each reports its own failure and
// completes with an exit code.
//
// Alone (rec == nullptr) each prints what `aws s3` prints ("upload: ./f to
// s3://b/k"; `put` prints the ETag instead), or its --json document. Inside
// a tree (rec given) it prints nothing and fills *rec: the caller prints,
// once the whole step (a move's delete too) is done.

#include "context.hpp"

#include <boost/asio/awaitable.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace floe::cli {

/// One object of a tree, for its --json document.
struct transfer_record {
  std::string source, destination;
  std::uint64_t size = 0;
  std::string etag;
  bool ok = false;
};

/// "upload: ./f to s3://b/k": `word`, then `from` and `to` as shown (local
/// paths through shown_path, S3 as URIs; an empty `to`: "delete: FROM"),
/// "(dryrun) " first under --dryrun; nothing under --quiet,
/// --only-show-errors or --json.
void print_op_line(context& x, std::string_view word, std::string_view from, std::string_view to);

/// A local path or an s3:// URI as operation lines show it.
std::string shown_endpoint(std::string_view path_or_uri);

/// The Content-Type an upload of `name` gets: --content-type when given,
/// else guessed from the name unless --no-guess-mime-type ("" for none).
std::string upload_content_type(context const& x, std::string_view name);

/// Local file (or "-": stdin) to S3, with x.cl's content type (else guessed
/// from the file's name, stdin's from the key's), metadata and conditions.
boost::asio::awaitable<int> upload_one(context& x, std::string const& local, std::string const& bucket,
                                       std::string const& key, transfer_record* rec);

/// S3 to a local file or "-" (stdout). The file's directory is created when
/// missing; the body goes to a temporary file beside it, renamed into place
/// when complete, and the file is given the object's modification time (as
/// `aws s3` does: sync compares it). `quiet`: no bar (cat, trees).
boost::asio::awaitable<int> download_one(context& x, std::string const& bucket, std::string const& key,
                                         std::string const& local, bool quiet, transfer_record* rec);

/// What is known of a copy's source beforehand (a listing, a HeadObject).
struct copy_source {
  std::string etag;  // non-empty: copy only that version (x-amz-copy-source-if-match)
  std::optional<std::uint64_t> size;
};

/// S3 to S3 (CopyObject). `src` may be null.
boost::asio::awaitable<int> copy_one(context& x, std::string const& source_bucket, std::string const& source_key,
                                     std::string const& bucket, std::string const& key, copy_source const* src,
                                     transfer_record* rec);

}  // namespace floe::cli
