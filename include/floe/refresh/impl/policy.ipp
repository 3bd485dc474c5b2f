#pragma once
#include <floe/refresh/policy.hpp>

#include <algorithm>

namespace floe::refresh {

FLOE_DECL std::chrono::seconds advisory_window(std::chrono::seconds lifetime) noexcept {
  using std::chrono::minutes;
  if (lifetime <= minutes(20)) return minutes(5);
  if (lifetime <= minutes(90)) return minutes(15);
  return minutes(60);
}

FLOE_DECL std::chrono::milliseconds backoff_delay(backoff_params const& p, unsigned step, double random01) noexcept {
  using ms = std::chrono::milliseconds;
  if (step == 0 || p.base <= ms::zero()) return ms::zero();
  ms d = p.base;
  for (unsigned i = 1; i < step; ++i) {
    if (p.cap > ms::zero() && d >= p.cap) break;
    if (d.count() > (ms::max().count() / 4)) break;
    d *= 2;
  }
  if (p.cap > ms::zero()) d = std::min(d, p.cap);
  if (!(random01 >= 0.0)) random01 = 0.0;  // NaN too
  if (random01 > 1.0) random01 = 1.0;
  auto const half = d.count() / 2;
  return ms(half + static_cast<ms::rep>(static_cast<double>(d.count() - half) * random01));
}

FLOE_DECL std::string_view to_string(fetch_reason r) noexcept {
  switch (r) {
    case fetch_reason::initial: return "initial";
    case fetch_reason::scheduled: return "scheduled";
    case fetch_reason::forced: return "forced";
  }
  return "?";
}

FLOE_DECL bool state::servable(time_point now) const noexcept {
  if (!current_) return false;
  if (current_->generation <= highest_bad_) return false;
  if (current_->fetch_id < required_) return false;
  if (current_->expiry && now >= *current_->expiry) return false;
  return true;
}

std::uint64_t state::start(fetch_reason r) noexcept {
  auto const id = next_fetch_id_++;
  in_flight_ = id;
  in_flight_reason_ = r;
  ++stats_.fetches;
  switch (r) {
    case fetch_reason::initial: ++stats_.initial; break;
    case fetch_reason::scheduled: ++stats_.scheduled; break;
    case fetch_reason::forced: ++stats_.forced; break;
  }
  return id;
}

FLOE_DECL get_decision state::on_get(time_point now) noexcept {
  get_decision d;
  bool const retry_ok = !stats_.retry_after || now >= *stats_.retry_after;
  if (servable(now)) {
    if (!current_->expiry) return d;
    auto const expiry = *current_->expiry;
    auto const lifetime = std::chrono::duration_cast<std::chrono::seconds>(expiry - current_->arrived);
    if (now < expiry - advisory_window(lifetime)) return d;
    if (now < expiry - params_.mandatory_window) {
      // Advisory window: one background fetch, the set is still served.
      if (!in_flight_ && retry_ok) {
        d.start_fetch = true;
        d.start_id = start(fetch_reason::scheduled);
        d.reason = fetch_reason::scheduled;
      }
      return d;
    }
    // Mandatory window: wait for a fetch, unless fetches are backing off
    // after failures (then the still-valid set is served).
    if (in_flight_) {
      d.what = get_action::wait;
      d.fetch_id = *in_flight_;
      ++stats_.waits;
      return d;
    }
    if (!retry_ok) return d;
    d.what = get_action::wait;
    d.start_fetch = true;
    d.start_id = d.fetch_id = start(fetch_reason::scheduled);
    d.reason = fetch_reason::scheduled;
    ++stats_.waits;
    return d;
  }
  // No usable set.
  if (in_flight_) {
    d.what = get_action::wait;
    if (*in_flight_ >= required_) {
      d.fetch_id = *in_flight_;
    } else {
      // The fetch in flight started before the last invalidation: wait for
      // the one after it, which starts when it lands.
      d.fetch_id = required_;
      want_ = std::max(want_, required_);
    }
    ++stats_.waits;
    return d;
  }
  if (!retry_ok) {
    d.what = get_action::fail;
    return d;
  }
  fetch_reason const r = !current_                                                        ? fetch_reason::initial
                         : (current_->generation <= highest_bad_ || current_->fetch_id < required_) ? fetch_reason::forced
                                                                                         : fetch_reason::scheduled;
  d.what = get_action::wait;
  d.start_fetch = true;
  d.start_id = d.fetch_id = start(r);
  d.reason = r;
  ++stats_.waits;
  return d;
}

FLOE_DECL invalidate_outcome state::on_invalidate(std::uint64_t generation, time_point now, double random01) noexcept {
  invalidate_outcome o;
  if (generation == 0 || generation <= highest_bad_ || generation > last_generation_) return o;
  bool const is_current = current_ && current_->generation == generation;
  bool const cured = last_forced_cured_ && current_ && current_->generation == last_forced_generation_;
  if (is_current && current_->forced && !cured && !current_->judged) {
    // The set a forced fetch brought was rejected too: that fetch cured nothing.
    current_->judged = true;
    ++stats_.unproductive;
    ++stats_.forced_backoff_level;
    stats_.forced_backoff_until = now + backoff_delay(params_.forced, stats_.forced_backoff_level, random01);
  }
  if (stats_.forced_backoff_until && now < *stats_.forced_backoff_until) {
    ++stats_.declined;
    o.what = invalidate_action::declined;
    o.backoff_until = stats_.forced_backoff_until;
    return o;
  }
  o.what = invalidate_action::accepted;
  ++stats_.invalidations;
  highest_bad_ = generation;
  required_ = next_fetch_id_;
  if (in_flight_) {
    want_ = std::max(want_, required_);  // chained when the stale fetch lands
    return o;
  }
  bool const retry_ok = !stats_.retry_after || now >= *stats_.retry_after;
  if (retry_ok) {
    o.start_fetch = true;
    o.start_id = start(fetch_reason::forced);
  }
  return o;
}

fetch_outcome state::finish(std::uint64_t fetch_id) noexcept {
  fetch_outcome o;
  if (in_flight_ && *in_flight_ == fetch_id) in_flight_.reset();
  completed_ = std::max(completed_, fetch_id);
  return o;
}

FLOE_DECL fetch_outcome state::on_fetch_success(std::uint64_t fetch_id, std::optional<time_point> expiry,
                                                time_point now, double random01) noexcept {
  auto const reason = in_flight_reason_;
  fetch_outcome o = finish(fetch_id);
  if (fetch_id < required_) {
    // Started before an invalidation: its key may be revoked too.
    ++stats_.discarded;
    o.discarded = true;
    stats_.failure_streak = 0;
    stats_.retry_after.reset();
  } else if (reason == fetch_reason::scheduled && servable(now) && current_->expiry && expiry &&
             *expiry <= *current_->expiry) {
    // No later expiry: nothing gained; keep the set and back off.
    ++stats_.soft_failures;
    o.soft_failure = true;
    ++stats_.failure_streak;
    stats_.retry_after = now + backoff_delay(params_.failure, stats_.failure_streak, random01);
  } else {
    set_info s;
    s.generation = ++last_generation_;
    s.fetch_id = fetch_id;
    s.expiry = expiry;
    s.arrived = now;
    s.forced = reason == fetch_reason::forced;
    current_ = s;
    if (s.forced) {
      last_forced_generation_ = s.generation;
      last_forced_cured_ = false;
    }
    o.adopted = true;
    stats_.generation = s.generation;
    stats_.expiry = expiry;
    stats_.failure_streak = 0;
    stats_.retry_after.reset();
  }
  o.generation = current_ ? current_->generation : 0;
  if (want_ > fetch_id && !in_flight_) {
    o.start_fetch = true;
    o.reason = fetch_reason::forced;
    o.start_id = start(fetch_reason::forced);
  }
  return o;
}

FLOE_DECL fetch_outcome state::on_fetch_failure(std::uint64_t fetch_id, time_point now, double random01) noexcept {
  fetch_outcome o = finish(fetch_id);
  ++stats_.failures;
  ++stats_.failure_streak;
  stats_.retry_after = now + backoff_delay(params_.failure, stats_.failure_streak, random01);
  o.generation = current_ ? current_->generation : 0;
  if (want_ > fetch_id && !in_flight_) {
    // Waiters need a fetch started after their invalidation; this one was
    // older. Give them that one try.
    o.start_fetch = true;
    o.reason = fetch_reason::forced;
    o.start_id = start(fetch_reason::forced);
  }
  return o;
}

FLOE_DECL void state::on_cured(std::uint64_t generation) noexcept {
  if (generation == 0 || generation != last_forced_generation_ || last_forced_cured_) return;
  last_forced_cured_ = true;
  ++stats_.cures;
  stats_.forced_backoff_level = 0;
  stats_.forced_backoff_until.reset();
}

FLOE_DECL waiter_action state::answer(std::uint64_t fetch_id, time_point now) const noexcept {
  if (completed_ < fetch_id) return waiter_action::keep_waiting;
  if (servable(now)) return waiter_action::serve;
  // A newer fetch that a later invalidation asked for is on its way.
  if (in_flight_ && *in_flight_ >= required_ && required_ > fetch_id) return waiter_action::keep_waiting;
  return waiter_action::fail;
}

}  // namespace floe::refresh
