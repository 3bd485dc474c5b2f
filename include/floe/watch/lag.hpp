#pragma once
// How far behind its events a watcher is. Pure: the runner reports what it
// received, settled and failed, with the time; this answers the oldest
// unregistered event's age (the floe_watch_oldest_unregistered_age_seconds
// gauge). The lag histogram (event time to commit) is in metrics.hpp.
//
// An object counts from when its message is received until it settles
// (registered, already registered, vanished, replaced). One that fails
// keeps counting while its message is due back: until its back-off (the
// visibility it was given) plus `slack` has passed since the failure; a
// message received again renews it. So a poison object shows as a growing
// age, and one that went to the dead-letter queue (or that another watcher
// took) stops counting a little after it would have come back. Objects
// without an event time (EventBridge copies may lack one) are not counted.

#include <floe/config.hpp>
#include <floe/result.hpp>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>

namespace floe::watch {

/// An event time as S3 ("2026-12-01T10:00:00.123Z") or EventBridge
/// ("2026-12-01T10:00:00Z") sends it, to the millisecond; one without a
/// zone (moto's "2026-12-01T10:00:00.123456") is taken as UTC. Errors:
/// errc::invalid_argument.
FLOE_DECL result<std::chrono::sys_time<std::chrono::milliseconds>> parse_event_time(std::string_view text);

class lag_tracker {
 public:
  using wall = std::chrono::system_clock;
  using wall_time = std::chrono::sys_time<std::chrono::milliseconds>;
  using steady = std::chrono::steady_clock::time_point;

  /// What identifies an object's event: bucket, key, ETag, version id.
  using identity = std::tuple<std::string, std::string, std::string, std::string>;

  explicit lag_tracker(std::chrono::seconds slack = std::chrono::seconds(60)) : slack_(slack) {}

  /// Its message was received (again): counted until it settles.
  FLOE_DECL void received(identity const& id, wall_time event_time);
  /// Registered, or settled without failure: no longer counted.
  FLOE_DECL void settled(identity const& id);
  /// Failed at `now`, its message given `backoff` before it comes back.
  FLOE_DECL void failed(identity const& id, steady now, std::chrono::seconds backoff);

  /// The oldest counted event's age at `wall_now` (0 when its time is
  /// ahead of the clock); nullopt when none is counted. Forgets failed
  /// objects whose message is overdue by more than the slack.
  FLOE_DECL std::optional<std::chrono::milliseconds> oldest_age(wall_time wall_now, steady now);

  std::size_t counted() const noexcept { return objects_.size(); }

 private:
  struct state {
    wall_time event_time;
    std::optional<steady> forget_at;  // set when failed
  };
  std::chrono::seconds slack_;
  std::map<identity, state> objects_;
};

}  // namespace floe::watch

#if defined(FLOE_HEADER_ONLY)
#include <floe/watch/impl/lag.ipp>
#endif
