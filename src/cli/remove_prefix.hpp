#pragma once
// rm --recursive and rb --force: every key under a prefix deleted, a
// listing page (up to 1000 keys) per DeleteObjects.

#include "context.hpp"
#include "delete_batch.hpp"

#include <boost/asio/awaitable.hpp>

#include <string>

namespace floe::cli {

/// Deletes the keys under `prefix` that x.cl's filters take (matched on the
/// key below the prefix), printing "delete: s3://b/k" for each (or
/// "(dryrun) delete: ..." and nothing sent). A DeleteObjects request that
/// fails stops it: the keys deleted before are printed, the error decides
/// the exit code, and that batch's keys are in tally.not_done.
boost::asio::awaitable<int> remove_prefix(context& x, std::string const& bucket, std::string const& prefix,
                                          delete_tally& tally);

class json_writer;
/// The tally as --json members: "deleted", "errors": [{"key", "code",
/// "message"}], "not_done" (and "dryrun": true under --dryrun).
void write_tally_fields(context const& x, json_writer& w, delete_tally const& tally);
/// The same members after "deleted" (which the caller streamed).
void write_tally_rest(context const& x, json_writer& w, delete_tally const& tally);

}  // namespace floe::cli
