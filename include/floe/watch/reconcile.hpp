#pragma once
// Reconcile listings: what a watcher lists to find objects no event told it
// about, and which listed objects it works on. Pure: the runner lists a
// page at a time (memory flat) and sends what reconcile_page returns
// through the same HEAD / --exec / commit path as an event's objects.
//
//   for (auto const& l : reconcile_targets(patterns))   // each (bucket, prefix) once
//     for each page of ListObjectsV2(l.bucket, l.prefix):
//       auto work = reconcile_page(l.bucket, page, filter, known);
//
// A listed object is worked on when a pattern matches it, it is not under
// the ledger's own prefix, and the ledger does not hold it (bucket, key,
// ETag; a versioned object the ledger holds with its version id is not
// found so: its HEAD then finds it registered, and nothing is written).
// Replicas reconciling at once still register each object once (the
// ledger's commit guarantees it); the schedule spreads them: the first
// pass at a random point of the first period, then every period scaled by
// a random factor in [0.75, 1.25).

#include <floe/config.hpp>
#include <floe/watch/batch.hpp>
#include <floe/watch/pattern.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace floe::watch {

struct reconcile_target {
  std::string bucket;
  std::string prefix;
  friend bool operator==(reconcile_target const&, reconcile_target const&) = default;
};

/// Each pattern's bucket and literal prefix, a prefix that another of the
/// same bucket covers (starts with it) dropped, in the patterns' order.
FLOE_DECL std::vector<reconcile_target> reconcile_targets(std::vector<pattern> const& patterns);

struct listed_object {
  std::string key;
  std::string etag;  // as listed (quotes removed here)
  std::uint64_t size = 0;
};

/// known(bucket, key, etag): the ledger holds it.
using known_fn = std::function<bool(std::string_view bucket, std::string_view key, std::string_view etag)>;

/// The work items of one listed page (event_name "reconcile", no messages).
FLOE_DECL std::vector<object_work> reconcile_page(std::string const& bucket, std::vector<listed_object> const& page,
                                                  object_filter const& filter, known_fn const& known);

/// What one reconcile pass did (watcher::reconcile_now, floe ledger
/// reconcile).
struct reconcile_report {
  std::uint64_t listed = 0;      // objects listed under the patterns' prefixes
  std::uint64_t registered = 0;  // registered by this pass
  std::uint64_t already = 0;     // worked on and found registered (by another writer meanwhile, or named twice)
  std::uint64_t skipped = 0;     // gone or replaced between the listing and their HEAD
  std::uint64_t failed = 0;      // their HEAD, --exec or commit failed
  std::uint64_t commits = 0;     // commits written (one per page at most)
  std::string listing_error;     // the first listing that failed (the pass went on with the next prefix)
};

class reconcile_schedule {
 public:
  using clock = std::chrono::steady_clock;
  /// `random01` in [0, 1): drawn once per pass.
  FLOE_DECL reconcile_schedule(std::chrono::milliseconds period, clock::time_point start, double random01);
  clock::time_point next() const noexcept { return next_; }
  bool due(clock::time_point now) const noexcept { return now >= next_; }
  /// A pass started at `now`: the next one is a scaled period later.
  FLOE_DECL void started(clock::time_point now, double random01);

 private:
  std::chrono::milliseconds period_;
  clock::time_point next_;
};

}  // namespace floe::watch

#if defined(FLOE_HEADER_ONLY)
#include <floe/watch/impl/reconcile.ipp>
#endif
