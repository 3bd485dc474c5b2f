#include <floe/retry/policy.hpp>

#include <string>

#include <doctest/doctest.h>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace retry_policy_test {

using namespace std::chrono_literals;
using floe::errc;
using floe::errors::kind;
using namespace floe::retry;

namespace {
attempt_outcome reply(kind k) {
  attempt_outcome o;
  o.kind = k;
  return o;
}
attempt_outcome lost(bool timed_out = false) {
  attempt_outcome o;
  o.kind = kind::transient;
  o.reply_received = false;
  o.timed_out = timed_out;
  return o;
}
}  // namespace

TEST_CASE("backoff is full jitter over min(2^n s, 20 s)") {
  standard_params p;
  CHECK(backoff(p, 0, 0.0) == 0ns);
  CHECK(backoff(p, 0, 0.5) == 500ms);
  CHECK(backoff(p, 1, 0.5) == 1s);
  CHECK(backoff(p, 2, 0.25) == 1s);
  CHECK(backoff(p, 4, 0.999) < 16s);
  CHECK(backoff(p, 5, 1.0) == 20s);   // 32 s capped at 20
  CHECK(backoff(p, 200, 0.5) == 10s);  // no overflow for huge n
  CHECK(backoff(p, 1, -1.0) == 0ns);
}

TEST_CASE("standard mode: three attempts, then attempts_exhausted") {
  standard_params p;
  quota q(p);
  operation op(p, q);
  request_traits r;
  auto d = op.on_outcome(r, reply(kind::throttled), 0.5);
  CHECK(d.what == action::retry);
  CHECK(d.delay == 500ms);
  CHECK(op.attempt() == 2);
  d = op.on_outcome(r, reply(kind::transient), 0.5);
  CHECK(d.what == action::retry);
  CHECK(d.delay == 1s);
  d = op.on_outcome(r, reply(kind::transient), 0.5);
  CHECK(d.what == action::stop);
  CHECK(d.reason == errc::attempts_exhausted);
  CHECK(q.available() == 490);
}

TEST_CASE("quota: a retry costs 5, 10 after a timeout; success refunds the last cost; first-try success adds 1") {
  standard_params p;
  quota q(p);
  request_traits r;
  {
    operation op(p, q);
    CHECK(op.on_outcome(r, lost(true), 0.1).what == action::retry);
    CHECK(q.available() == 490);
    CHECK(op.on_outcome(r, lost(false), 0.1).what == action::retry);
    CHECK(q.available() == 485);
    CHECK(op.on_outcome(r, reply(kind::success), 0.1).what == action::done);
    CHECK(q.available() == 490);  // the last retry's 5 refunded
  }
  {
    operation op(p, q);
    CHECK(op.on_outcome(r, reply(kind::success), 0.1).what == action::done);
    CHECK(q.available() == 491);
  }
  quota full(p);
  operation op(p, full);
  op.on_outcome(r, reply(kind::success), 0.1);
  CHECK(full.available() == 500);  // never above capacity
}

TEST_CASE("quota running out stops retries with retry_quota_exhausted") {
  standard_params p;
  p.quota_capacity = 12;
  quota q(p);
  request_traits r;
  operation a(p, q);
  CHECK(a.on_outcome(r, reply(kind::throttled), 0).what == action::retry);  // 7 left
  operation b(p, q);
  CHECK(b.on_outcome(r, reply(kind::throttled), 0).what == action::retry);  // 2 left
  operation c(p, q);
  auto d = c.on_outcome(r, reply(kind::throttled), 0);
  CHECK(d.what == action::stop);
  CHECK(d.reason == errc::retry_quota_exhausted);
  CHECK(q.available() == 2);
  CHECK(c.on_outcome(r, lost(true), 0).reason == errc::retry_quota_exhausted);
}

TEST_CASE("a non-retryable reply is the answer, not a failure") {
  standard_params p;
  quota q(p);
  operation op(p, q);
  auto d = op.on_outcome({}, reply(kind::not_found), 0.5);
  CHECK(d.what == action::stop);
  CHECK(d.reason == errc::ok);
  CHECK(q.available() == 500);
}

TEST_CASE("non-idempotent requests are retried only if they never reached the server") {
  request_traits r;
  r.idempotent = false;
  CHECK(may_retry(r, lost()) == errc::transient);
  CHECK(may_retry(r, reply(kind::throttled)) == errc::throttled);
  attempt_outcome o = lost();
  o.reached_server = false;
  CHECK(may_retry(r, o) == errc::ok);
  CHECK(may_retry(r, reply(kind::clock_skew)) == errc::ok);
}

TEST_CASE("a conditional write is never retried once it reached the server; a lost reply is unknown_outcome") {
  request_traits r;
  r.conditional_write = true;
  CHECK(may_retry(r, lost()) == errc::unknown_outcome);
  CHECK(may_retry(r, reply(kind::transient)) == errc::unknown_outcome);
  CHECK(may_retry(r, reply(kind::throttled)) == errc::throttled);
  CHECK(may_retry(r, reply(kind::clock_skew)) == errc::clock_skew);
  attempt_outcome o = lost();
  o.reached_server = false;
  CHECK(may_retry(r, o) == errc::ok);

  standard_params p;
  quota q(p);
  operation op(p, q);
  auto d = op.on_outcome(r, lost(), 0.5);
  CHECK(d.what == action::stop);
  CHECK(d.reason == errc::unknown_outcome);
}

TEST_CASE("a consumed non-replayable body is never resent; an unconsumed one may be") {
  request_traits r;
  r.replayable_body = false;
  attempt_outcome o = reply(kind::transient);
  o.body_consumed = true;
  CHECK(may_retry(r, o) == errc::body_not_replayable);
  o.body_consumed = false;  // e.g. a 503 answering Expect: 100-continue
  CHECK(may_retry(r, o) == errc::ok);
}

TEST_CASE("may_send_again: one rule, the request body's bytes and the reply sink's") {
  using floe::retry::may_send_again;
  request_traits memory;  // a replayable body (memory, a file)
  request_traits stream;
  stream.replayable_body = false;
  // Nothing used: always.
  CHECK(may_send_again(memory, false, false));
  CHECK(may_send_again(stream, false, false));  // a stream still waiting for 100 Continue
  // A replayable body is read again from its start.
  CHECK(may_send_again(memory, true, false));
  CHECK_FALSE(may_send_again(stream, true, false));
  // A reply sink that took bytes cannot take them again, whatever the body.
  CHECK_FALSE(may_send_again(memory, false, true));
  CHECK_FALSE(may_send_again(stream, false, true));
}

TEST_CASE("a stream sink that took no byte is retried; one that took bytes is not") {
  request_traits get;  // a GET: no body; its sink is a stream
  attempt_outcome o = reply(kind::transient);
  CHECK(may_retry(get, o) == errc::ok);
  o.sink_dirty = true;
  CHECK(may_retry(get, o) == errc::body_not_replayable);
  attempt_outcome t = lost();
  t.sink_dirty = true;
  CHECK(may_retry(get, t) == errc::body_not_replayable);
}

TEST_CASE("clock skew is retried at once, without back-off") {
  standard_params p;
  quota q(p);
  operation op(p, q);
  auto d = op.on_outcome({}, reply(kind::clock_skew), 0.9);
  CHECK(d.what == action::retry);
  CHECK(d.delay == 0ns);
}

TEST_CASE("stale_resend_refusal: a stale keep-alive connection is resent unless the request forbids it") {
  using floe::retry::stale_resend_refusal;
  floe::retry::request_traits t;
  CHECK(stale_resend_refusal(t, false, 0, 2) == nullptr);
  CHECK(stale_resend_refusal(t, true, 1, 2) == nullptr);  // a replayable body is sent again whole
  CHECK(std::string(stale_resend_refusal(t, false, 2, 2)) == "max_stale_resends reached");
  auto nr = t;
  nr.replayable_body = false;
  CHECK(stale_resend_refusal(nr, false, 0, 2) == nullptr);
  CHECK(std::string(stale_resend_refusal(nr, true, 0, 2)) == "its body cannot be replayed");
  auto post = t;
  post.idempotent = false;
  CHECK(std::string(stale_resend_refusal(post, false, 0, 2)) == "the request is not idempotent");
  auto cw = t;
  cw.conditional_write = true;
  CHECK(std::string(stale_resend_refusal(cw, false, 0, 2)) == "a conditional write is never resent");
}

}  // namespace retry_policy_test
