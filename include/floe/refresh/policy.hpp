#pragma once
// The credential refresh policy as a pure state machine: advisory and
// mandatory windows, single flight, generations, invalidation, back-off.
//
// Pure: no clock (every call takes `now`), no randomness (jitter draws are
// parameters), no I/O, no credentials (only generations and expiries). The
// refreshing cache (credentials/refreshing.hpp) runs it: it asks on_get what
// to do for each request, runs the fetches this machine starts, reports their
// outcome, and asks answer() for each waiter.
//
// The rules (docs/design.md, Credential refresh):
// - A set is served from cache outside its advisory window. Inside it, one
//   background fetch runs while the set is still served. Requests block only
//   inside the mandatory window (60 s before expiry) or when there is no
//   usable set at all.
// - Advisory window by lifetime (expiry minus the time the set arrived):
//   5 min for sets living 20 min or less, 15 min up to 90 min, 60 min beyond.
// - One fetch in flight at a time (single flight). Each fetch has an id,
//   numbered from 1 in the order fetches start; each adopted set a
//   generation, numbered from 1.
// - invalidate(g): a request signed with generation g was rejected as stale.
//   g and every older generation are bad; the next set served must come from
//   a fetch STARTED after this call (a fetch already in flight may return a
//   key revoked meanwhile). A fetch that started earlier is discarded when
//   it lands and the next one starts at once. Invalidations of a generation
//   already known bad are no-ops, so any number of requests failing together
//   cause one fetch.
// - A failed fetch keeps a set that is still valid and was never
//   invalidated, never an invalidated one; fetches then back off with
//   jitter (failure back-off). A scheduled fetch whose set expires no later
//   than the one in use is a soft failure: the set in use is kept and the
//   failure back-off applies. Fetch errors never invalidate anything.
// - A forced fetch (after an invalidation) whose own set is rejected again
//   without having cured a 403 was unproductive: the next forced fetch is
//   allowed only after an escalating back-off with jitter. While that
//   back-off is in force, invalidate() is declined: the set stays in use and
//   the caller should fail the request at once with a clear error (a real
//   denial must not become an STS storm). The escalation resets ONLY when a
//   forced set cures a 403: on_cured(g), which the caller reports when the
//   very request that was rejected succeeds on its one retry with g. Other
//   requests succeeding with g, g serving a long time, or g lasting until
//   its scheduled refresh reset nothing: with a real denial on one path,
//   every other path keeps succeeding, and none of that says the refresh
//   cured anything.

#include <floe/config.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string_view>

namespace floe::refresh {

using time_point = std::chrono::system_clock::time_point;

/// The advisory window for a set living `lifetime`: 5 min up to 20 min,
/// 15 min up to 90 min, 60 min beyond. Never negative.
FLOE_DECL std::chrono::seconds advisory_window(std::chrono::seconds lifetime) noexcept;

/// An escalating back-off. Zero durations mean "none".
struct backoff_params {
  std::chrono::milliseconds base{1000};
  std::chrono::milliseconds cap{60'000};
};

/// Delay before try number `step` + 1 after `step` (>= 1) consecutive
/// failures: d = min(base x 2^(step-1), cap), jittered to d/2 + random01 x d/2
/// ("equal jitter": never zero, so an escalation is never skipped). 0 for
/// step 0. `random01` is clamped to [0, 1].
FLOE_DECL std::chrono::milliseconds backoff_delay(backoff_params const& p, unsigned step, double random01) noexcept;

struct params {
  /// Requests block for a fresh set only this close to expiry.
  std::chrono::seconds mandatory_window{60};
  /// After a failed (or soft-failed) fetch.
  backoff_params failure{std::chrono::milliseconds(1000), std::chrono::milliseconds(60'000)};
  /// After an unproductive forced fetch.
  backoff_params forced{std::chrono::milliseconds(5000), std::chrono::milliseconds(300'000)};
};

/// Why a fetch was started.
enum class fetch_reason : std::uint8_t {
  initial,    // no set yet
  scheduled,  // advisory (background) or mandatory (blocking) refresh, or the set expired
  forced,     // a set was invalidated
};

FLOE_DECL std::string_view to_string(fetch_reason r) noexcept;

/// What the machine counts; the cache adds its own source description.
struct counters {
  std::uint64_t fetches = 0;              // fetches started
  std::uint64_t initial = 0;              // ... of which initial
  std::uint64_t scheduled = 0;            // ... of which scheduled (advisory or mandatory)
  std::uint64_t forced = 0;               // ... of which forced
  std::uint64_t unproductive = 0;         // forced fetches whose set was rejected again
  std::uint64_t failures = 0;             // fetches that failed
  std::uint64_t soft_failures = 0;        // scheduled fetches that brought no later expiry
  std::uint64_t discarded = 0;            // fetches that landed after an invalidation made them stale
  std::uint64_t invalidations = 0;        // invalidations accepted
  std::uint64_t declined = 0;             // invalidations declined (forced back-off in force)
  std::uint64_t cures = 0;                // forced sets reported to have cured a 403
  std::uint64_t waits = 0;                // requests that had to wait for a fetch
  std::uint64_t generation = 0;           // of the set in use (0: none yet)
  std::optional<time_point> expiry;       // of the set in use
  unsigned forced_backoff_level = 0;      // unproductive forced fetches in a row
  std::optional<time_point> forced_backoff_until;
  unsigned failure_streak = 0;            // failed fetches in a row
  std::optional<time_point> retry_after;  // failure back-off
};

/// What on_get says about one request.
enum class get_action : std::uint8_t {
  serve,  // hand out the current set now
  wait,   // wait until fetch `fetch_id` has landed, then ask answer()
  fail,   // fail now: no usable set and fetches are backing off after failures
};

struct get_decision {
  get_action what = get_action::serve;
  std::uint64_t fetch_id = 0;       // wait: the first fetch whose outcome answers this request
  bool start_fetch = false;         // the caller must start fetch `start_id` now
  std::uint64_t start_id = 0;
  fetch_reason reason = fetch_reason::initial;
};

enum class invalidate_action : std::uint8_t {
  ignored,   // generation unknown or already known bad: nothing to do
  accepted,  // the set is bad; a fetch started after now is required
  declined,  // forced back-off in force: the set stays; fail the request at once
};

struct invalidate_outcome {
  invalidate_action what = invalidate_action::ignored;
  bool start_fetch = false;
  std::uint64_t start_id = 0;
  /// declined: until when forced fetches are backing off.
  std::optional<time_point> backoff_until;
};

struct fetch_outcome {
  bool adopted = false;             // the fetched set is now in use, as generation `generation`
  std::uint64_t generation = 0;     // of the set in use afterwards (0: none)
  bool soft_failure = false;
  bool discarded = false;           // started before an invalidation: not used
  bool start_fetch = false;         // a further fetch is needed now (waiters need a newer one)
  std::uint64_t start_id = 0;
  fetch_reason reason = fetch_reason::initial;
};

enum class waiter_action : std::uint8_t { keep_waiting, serve, fail };

class state {
 public:
  explicit state(params p = {}) noexcept : params_(p) {}

  params const& settings() const noexcept { return params_; }
  counters const& stats() const noexcept { return stats_; }

  /// A request wants credentials at `now`. May start a fetch (start_fetch).
  FLOE_DECL get_decision on_get(time_point now) noexcept;

  /// A request signed with `generation` was rejected as stale at `now`.
  /// `random01` jitters the forced back-off if this finds a forced set
  /// unproductive.
  FLOE_DECL invalidate_outcome on_invalidate(std::uint64_t generation, time_point now, double random01) noexcept;

  /// Fetch `fetch_id` landed with a set expiring at `expiry` (none: never).
  /// `random01` jitters the failure back-off of a soft failure.
  FLOE_DECL fetch_outcome on_fetch_success(std::uint64_t fetch_id, std::optional<time_point> expiry, time_point now,
                                           double random01) noexcept;

  /// Fetch `fetch_id` failed.
  FLOE_DECL fetch_outcome on_fetch_failure(std::uint64_t fetch_id, time_point now, double random01) noexcept;

  /// The very request that was rejected as stale with an older generation
  /// succeeded on its retry with `generation`. If that set came from a
  /// forced fetch (the one in use, or the last forced one when a scheduled
  /// set has replaced it since), it cured a 403: the forced back-off resets.
  /// The only way the back-off resets.
  FLOE_DECL void on_cured(std::uint64_t generation) noexcept;

  /// What to do with a request that waits for fetch `fetch_id`, now.
  FLOE_DECL waiter_action answer(std::uint64_t fetch_id, time_point now) const noexcept;

  /// Whether the current set may be handed out at `now` (valid, not
  /// invalidated, not older than the last invalidation, not expired).
  FLOE_DECL bool servable(time_point now) const noexcept;

  /// The fetch in flight, if any.
  std::optional<std::uint64_t> in_flight() const noexcept { return in_flight_; }
  /// Whether the current set came from a forced fetch.
  bool current_is_forced() const noexcept { return current_ && current_->forced; }

 private:
  struct set_info {
    std::uint64_t generation = 0;
    std::uint64_t fetch_id = 0;
    std::optional<time_point> expiry;
    time_point arrived{};
    bool forced = false;
    bool judged = false;  // counted unproductive already
  };

  std::uint64_t start(fetch_reason r) noexcept;
  fetch_outcome finish(std::uint64_t fetch_id) noexcept;

  params params_;
  counters stats_;
  std::optional<set_info> current_;
  std::optional<std::uint64_t> in_flight_;
  fetch_reason in_flight_reason_ = fetch_reason::initial;
  std::uint64_t next_fetch_id_ = 1;
  std::uint64_t completed_ = 0;      // highest fetch id that has landed
  std::uint64_t required_ = 0;       // sets from fetches below this id are not served
  std::uint64_t want_ = 0;           // a waiter needs this fetch id (chains fetches)
  std::uint64_t highest_bad_ = 0;    // generations up to this one were invalidated
  std::uint64_t last_generation_ = 0;
  std::uint64_t last_forced_generation_ = 0;  // the newest set a forced fetch brought
  bool last_forced_cured_ = false;
};

}  // namespace floe::refresh

#if defined(FLOE_HEADER_ONLY)
#include <floe/refresh/impl/policy.ipp>
#endif
