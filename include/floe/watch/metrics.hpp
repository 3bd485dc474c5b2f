#pragma once
// A watcher's counters and their Prometheus text form, and its health.
// Pure: the runner counts, an HTTP endpoint (the CLI's --metrics) renders.
//
// Counters only grow (Prometheus counters: *_total); gauges say what is
// true now. Every name starts with floe_watch_.

#include <floe/config.hpp>
#include <floe/error.hpp>

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace floe::watch {

/// The steps a watcher's errors are counted by.
enum class stage : std::uint8_t { receive, parse, head, exec, ledger, commit, remove, visibility, queue, reconcile };
FLOE_DECL std::string_view to_string(stage s) noexcept;

/// floe's name of an error's kind ("denied", "not_found", ...; "system" for
/// an error outside floe's category).
FLOE_DECL std::string_view error_kind(error const& e) noexcept;

/// Commit latency buckets, seconds (the upper bounds; +Inf implied).
inline constexpr std::array<double, 10> latency_buckets = {0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
/// Event lag buckets (an event's time to the commit registering its object), seconds.
inline constexpr std::array<double, 12> lag_buckets = {0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600};

struct metrics {
  std::uint64_t messages_received = 0;
  std::uint64_t messages_deleted = 0;   // deleted by us (ReceiptHandleIsInvalid on a retried delete included)
  std::uint64_t messages_kept = 0;      // left in the queue: malformed, or naming a failed object
  std::uint64_t messages_ignored = 0;   // valid, asking for nothing: deleted (test events included)
  std::uint64_t test_events = 0;
  std::uint64_t malformed_messages = 0;
  std::uint64_t objects_committed = 0;
  std::uint64_t objects_skipped = 0;     // vanished or replaced before their HEAD
  std::uint64_t duplicates_skipped = 0;  // the ledger held them already, or named twice in a batch
  std::uint64_t stale_events = 0;        // older than the newest event the ledger holds for their key
  std::uint64_t removals_committed = 0;  // removals written to the ledger (--removals)
  std::uint64_t objects_failed = 0;
  std::uint64_t exec_runs = 0;
  std::uint64_t exec_failures = 0;
  std::uint64_t commits = 0;             // commits written
  std::uint64_t commit_conflicts = 0;    // 409s on a commit write (any code)
  std::uint64_t commit_retries = 0;      // write attempts beyond the first (lost races, 409s, 5xx, lost replies)
  std::uint64_t commit_lost_races = 0;   // numbers another writer took
  std::uint64_t visibility_extensions = 0;
  std::uint64_t messages_handed_back = 0;  // made visible at once on stop (release.hpp)
  std::uint64_t messages_backed_off = 0;   // given a longer visibility after a failure (release.hpp)
  std::uint64_t reconciled_objects = 0;    // registered by a reconcile listing (reconcile.hpp)
  std::uint64_t reconcile_passes = 0;      // reconcile passes completed
  std::uint64_t denials = 0;             // denial episodes
  std::uint64_t credential_refreshes = 0;  // new credential sets since the start
  std::uint64_t hedges_sent = 0;  // the S3 client's hedged reads (s3::client::hedges), set by the renderer's caller
  std::uint64_t hedges_won = 0;
  std::map<std::pair<stage, std::string>, std::uint64_t> errors;  // (stage, error kind) -> count

  // Commit latency histogram: counts per bucket (not cumulative), sum, count.
  std::array<std::uint64_t, latency_buckets.size() + 1> latency_counts{};
  double latency_sum = 0;
  std::uint64_t latency_count = 0;

  // Event lag histogram, the same way.
  std::array<std::uint64_t, lag_buckets.size() + 1> lag_counts{};
  double lag_sum = 0;
  std::uint64_t lag_count = 0;

  FLOE_DECL void count_error(stage s, error const& e);
  FLOE_DECL void observe_commit(std::chrono::nanoseconds took) noexcept;
  /// An object registered `lag` after its event's time (a negative lag,
  /// an event time ahead of this clock, counts as 0).
  FLOE_DECL void observe_lag(std::chrono::milliseconds lag) noexcept;
};

struct health {
  bool ok = true;
  std::string reason;  // why not ok: one line, no secret
  std::size_t messages_held = 0;
  std::uint64_t ledger_head = 0;
  std::size_t ledger_entries = 0;
  double oldest_unregistered_age = 0;  // seconds; 0: nothing unregistered (lag.hpp)
  /// The queue's ApproximateNumberOfMessages and ...NotVisible, as last
  /// polled; not rendered before the first poll.
  std::optional<std::uint64_t> queue_visible;
  std::optional<std::uint64_t> queue_in_flight;
};

/// The text exposition format, version 0.0.4.
FLOE_DECL std::string render_prometheus(metrics const& m, health const& h);

/// /healthz: 200 "ok\n" or 503 "unhealthy: REASON\n".
FLOE_DECL std::pair<unsigned, std::string> render_health(health const& h);

}  // namespace floe::watch

#if defined(FLOE_HEADER_ONLY)
#include <floe/watch/impl/metrics.ipp>
#endif
