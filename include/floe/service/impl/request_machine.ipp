#pragma once
#include <floe/service/request_machine.hpp>

namespace floe::service {

FLOE_DECL request_machine::request_machine(retry::standard_params const& p, retry::quota& q, params pr) noexcept
    : op_(p, q), p_(pr) {}

FLOE_DECL action request_machine::send(std::chrono::nanoseconds delay) noexcept {
  // Nothing starts that would begin past the deadline: not an attempt, not
  // a back-off that would end there.
  if (past_deadline(delay)) return fail(failure::deadline, errc::timeout);
  ++sends_;
  action a;
  a.what = step::send;
  a.delay = delay;
  return a;
}

FLOE_DECL action request_machine::fail(failure why, errc stop) noexcept {
  action a;
  a.what = step::fail;
  a.why = why;
  a.stop = stop;
  return a;
}

FLOE_DECL action request_machine::start() noexcept {
  if (!p_.signs) return send();
  action a;
  a.what = step::get_credentials;
  return a;
}

FLOE_DECL action request_machine::on_credentials(std::uint64_t generation) noexcept {
  // After a heal the set must be newer than the one refused: the same
  // generation back means the provider declined to refresh (its forced
  // refreshes are backing off after curing nothing), and sending again
  // would only meet the same refusal.
  if (healed_ && generation == stale_generation_) return fail(failure::declined_refresh, errc::ok);
  generation_ = generation;
  return send();
}

FLOE_DECL action request_machine::on_credentials_failed() noexcept { return fail(failure::credentials, errc::ok); }

FLOE_DECL action request_machine::on_reply(reply_facts const& f, double random01) noexcept {
  using errors::kind;
  if (f.kind == kind::success) {
    retry::attempt_outcome ok;
    (void)op_.on_outcome(p_.traits, ok, random01);  // the quota's refund or increment
    action a;
    a.what = step::done;
    if (healed_ && generation_ != stale_generation_) a.generation = generation_;
    return a;
  }
  if (f.kind == kind::stale_credentials && p_.signs && p_.refreshable && !healed_ && can_resend(f.body_consumed, f.sink_dirty)) {
    // Outside the attempt count and the quota: no on_outcome.
    healed_ = true;
    stale_generation_ = generation_;
    action a;
    a.what = step::invalidate;
    a.generation = generation_;
    return a;
  }
  if (f.kind == kind::redirect && !redirected_ && can_resend(f.body_consumed, f.sink_dirty)) {
    action a;
    a.what = step::ask_service;
    return a;
  }
  retry::attempt_outcome o;
  o.kind = f.service_retryable ? kind::throttled : f.kind;
  o.body_consumed = f.body_consumed;
  o.sink_dirty = f.sink_dirty;
  // The skew is corrected once: a second rejection is the answer.
  if (o.kind == kind::clock_skew && skew_corrected_) return fail(failure::reply, errc::ok);
  tell_time_left();
  auto const d = op_.on_outcome(p_.traits, o, random01);
  if (d.what != retry::action::retry) return fail(d.reason == errc::timeout ? failure::deadline : failure::reply, d.reason);
  if (o.kind == kind::clock_skew) {
    skew_corrected_ = true;
    auto a = send();  // at once: the server did nothing
    a.skew = f.skew;
    return a;
  }
  return send(d.delay);
}

FLOE_DECL action request_machine::on_transport_failure(transport_facts const& t, double random01) noexcept {
  if (t.final) return fail(failure::transport, errc::ok);
  retry::attempt_outcome o;
  o.kind = errors::kind::transient;
  o.reached_server = t.reached_server;
  o.body_consumed = t.body_consumed;
  o.sink_dirty = t.sink_dirty;
  o.timed_out = t.timed_out;
  o.reply_received = false;
  tell_time_left();
  auto const d = op_.on_outcome(p_.traits, o, random01);
  if (d.what != retry::action::retry)
    return fail(d.reason == errc::timeout ? failure::deadline : failure::transport, d.reason);
  return send(d.delay);
}

FLOE_DECL action request_machine::on_service(bool followed) noexcept {
  if (!followed) return fail(failure::reply, errc::ok);
  redirected_ = true;
  return send();
}

FLOE_DECL action request_machine::on_deadline() noexcept { return fail(failure::deadline, errc::timeout); }

}  // namespace floe::service
