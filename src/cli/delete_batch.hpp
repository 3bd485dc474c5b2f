#pragma once
// Deleting many keys: DeleteObjects, up to 1000 a request, each deleted key
// named as it goes ("delete: s3://b/k") and tallied for --json.

#include "context.hpp"

#include <floe/s3/replies.hpp>

#include <boost/asio/awaitable.hpp>

#include <functional>
#include <string>
#include <vector>

namespace floe::cli {

/// What the batches of one command did, for its --json document.
struct delete_tally {
  /// Each batch's deleted keys, when set, instead of `deleted`: rm
  /// --recursive --json streams them, so that its memory stays flat
  /// whatever the number of keys.
  std::function<void(std::vector<std::string> const&)> on_deleted;
  std::vector<std::string> deleted;
  std::vector<s3::delete_failure> errors;
  std::vector<std::string> not_done;  // in a batch whose request failed

  void add_deleted(std::vector<std::string> const& keys) {
    if (on_deleted) on_deleted(keys);
    else deleted.insert(deleted.end(), keys.begin(), keys.end());
  }
};

/// Deletes `keys` (at most 1000; taken from the vector) from `bucket`; under --dryrun only says
/// so. Keys the store refuses are reported one by one (exit 1); a request
/// that fails is reported once and its keys go to not_done. The exit code
/// of the batch.
boost::asio::awaitable<int> delete_keys(context& x, std::string const& bucket, std::vector<std::string>& keys,
                                        delete_tally& tally);

}  // namespace floe::cli
