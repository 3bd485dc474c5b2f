#pragma once
#include <floe/retry/policy.hpp>

#include <algorithm>
#include <cmath>

namespace floe::retry {

FLOE_DECL std::chrono::nanoseconds backoff(standard_params const& p, unsigned retries_made,
                                           double random01) noexcept {
  using std::chrono::nanoseconds;
  if (!(random01 > 0.0)) return nanoseconds{0};  // also catches NaN
  random01 = std::min(random01, 1.0);
  auto const cap = std::chrono::duration_cast<nanoseconds>(p.max_backoff);
  auto const base = std::chrono::duration_cast<nanoseconds>(p.base_delay);
  nanoseconds ceiling = cap;
  // 2^n x base, saturating at the cap (n grows past 63 without overflow).
  if (retries_made < 63) {
    auto const mult = std::uint64_t{1} << retries_made;
    if (base.count() == 0 || static_cast<std::uint64_t>(cap.count()) / mult >=
                                 static_cast<std::uint64_t>(base.count()))
      ceiling = std::min(cap, nanoseconds{static_cast<nanoseconds::rep>(mult) * base.count()});
  }
  return nanoseconds{static_cast<nanoseconds::rep>(random01 * static_cast<double>(ceiling.count()))};
}

FLOE_DECL errc may_retry(request_traits const& r, attempt_outcome const& o) noexcept {
  using errors::kind;
  if (o.kind == kind::success) return errc::ok;
  bool const lost_or_5xx = !o.reply_received || o.kind == kind::transient;
  if (o.kind == kind::unknown_outcome) return errc::unknown_outcome;
  if (!errors::is_retryable(o.kind)) return errors::to_errc(o.kind);
  if (!may_send_again(r, o.body_consumed, o.sink_dirty)) return errc::body_not_replayable;
  if (!o.reached_server) return errc::ok;
  if (r.conditional_write) return lost_or_5xx ? errc::unknown_outcome : errors::to_errc(o.kind);
  // The server rejected the signature's time before doing anything.
  if (o.kind == kind::clock_skew) return errc::ok;
  if (!r.idempotent) return errors::to_errc(o.kind);
  return errc::ok;
}

FLOE_DECL char const* stale_resend_refusal(request_traits const& r, bool body_consumed, unsigned resends_made,
                                           unsigned max_resends) noexcept {
  if (r.conditional_write) return "a conditional write is never resent";
  if (!r.idempotent) return "the request is not idempotent";
  if (!may_send_again(r, body_consumed, false)) return "its body cannot be replayed";
  if (resends_made >= max_resends) return "max_stale_resends reached";
  return nullptr;
}

FLOE_DECL decision operation::on_outcome(request_traits const& r, attempt_outcome const& o,
                                         double random01) noexcept {
  if (o.kind == errors::kind::success) {
    if (attempt_ == 1)
      quota_->release(params_->no_retry_increment);
    else
      quota_->release(last_cost_);
    return {action::done, {}, errc::ok};
  }
  errc const why = may_retry(r, o);
  if (why != errc::ok) {
    // A non-retryable reply is itself the answer; the other reasons are failures.
    bool const reply_is_answer = o.reply_received && why == errors::to_errc(o.kind);
    return {action::stop, {}, reply_is_answer ? errc::ok : why};
  }
  if (attempt_ >= params_->max_attempts) return {action::stop, {}, errc::attempts_exhausted};
  auto const delay =
      o.kind == errors::kind::clock_skew ? std::chrono::nanoseconds{0} : backoff(*params_, attempt_ - 1, random01);
  // A retry that would start at or past the deadline is not made (nor
  // charged to the quota).
  if (time_left_ && delay >= *time_left_) return {action::stop, {}, errc::timeout};
  unsigned const cost = o.timed_out ? params_->timeout_retry_cost : params_->retry_cost;
  if (!quota_->try_acquire(cost)) return {action::stop, {}, errc::retry_quota_exhausted};
  last_cost_ = cost;
  ++attempt_;
  return {action::retry, delay, errc::ok};
}

}  // namespace floe::retry
