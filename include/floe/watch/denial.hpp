#pragma once
// What a watcher does while it is refused: a back-off state machine. Pure.
//
// The clients heal a stale credential themselves (invalidate, fetch fresh
// ones, send again: within 2 s, one STS call). A refusal that outlives
// that (errc::denied, stale_credentials or credentials_unavailable after
// the client's own attempt) is a persisting denial, say a policy that was
// detached: waiting is the only cure, and a watcher must neither spin nor
// give up. While denied, the runner
//   - receives no new messages (the batch in work is not finished),
//   - keeps extending the visibility of the messages it holds, so none is
//     handed out again and drained into the dead-letter queue,
//   - retries the refused step after wait(), which doubles per step from
//     `initial` up to `cap`,
//   - logs one line per step (log_line true once per step, however many
//     operations were refused during it),
//   - answers /healthz with 503 and reason(),
// and recovers by itself: the first success after a denial ends it
// (on_success returns true once, for the "access restored" line).
//
// Several operations in flight may be refused at once: a refusal that
// arrives while a step's wait is still running joins that step (same
// retry time, no new line, no faster growth).

#include <floe/config.hpp>

#include <boost/system/error_code.hpp>

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace floe::watch {

struct backoff_config {
  std::chrono::milliseconds initial{1000};
  std::chrono::milliseconds cap{60000};
};

class denial_gate {
 public:
  using clock = std::chrono::steady_clock;
  using time_point = clock::time_point;

  explicit denial_gate(backoff_config cfg = {}) noexcept : cfg_(cfg) {}

  struct step {
    std::chrono::milliseconds wait{0};  // before retrying the refused operation
    unsigned number = 0;                // 1 for the first refusal
    bool log_line = false;              // the first refusal of this step
  };

  /// An operation was refused at `now`, for `reason` (one line, no secret).
  FLOE_DECL step on_denied(time_point now, std::string reason);
  /// An operation succeeded. True once when this ends a denial.
  FLOE_DECL bool on_success() noexcept;

  bool denied() const noexcept { return step_ > 0; }
  /// Why it is unhealthy (empty when not denied).
  std::string const& reason() const noexcept { return reason_; }
  unsigned steps() const noexcept { return step_; }
  /// Denials since the start (each ended or not), for the metrics.
  std::uint64_t episodes() const noexcept { return episodes_; }
  /// When the current step's wait ends.
  time_point retry_at() const noexcept { return retry_at_; }
  /// The wait of step n (1-based): initial x 2^(n-1), at most cap.
  FLOE_DECL std::chrono::milliseconds wait_of(unsigned n) const noexcept;

 private:
  backoff_config cfg_;
  unsigned step_ = 0;
  time_point retry_at_{};
  std::string reason_;
  std::uint64_t episodes_ = 0;
};

/// Whether an error is a refusal the back-off is for.
FLOE_DECL bool is_denial(boost::system::error_code const& ec) noexcept;

}  // namespace floe::watch

#if defined(FLOE_HEADER_ONLY)
#include <floe/watch/impl/denial.ipp>
#endif
