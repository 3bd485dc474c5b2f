// The request machine driven by hand: every rule of one request's path
// (service/request_machine.hpp), without a socket, a clock or a provider.
#include <floe/service/request_machine.hpp>

#include <doctest/doctest.h>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace service_request_machine_test {

using namespace floe::service;
using floe::errc;
using floe::errors::kind;
using namespace std::chrono_literals;

namespace {

struct bench {
  floe::retry::standard_params p;
  floe::retry::quota q{p};
  request_machine::params mp;

  bench() {
    mp.refreshable = true;
  }
  request_machine make() { return request_machine(p, q, mp); }
};

reply_facts reply(kind k) {
  reply_facts f;
  f.kind = k;
  return f;
}

transport_facts lost(bool reached = true) {
  transport_facts t;
  t.reached_server = reached;
  return t;
}

// Starts a signed request with credentials of `generation`: the first send.
action first_send(request_machine& m, std::uint64_t generation = 7) {
  auto a = m.start();
  REQUIRE(a.what == step::get_credentials);
  a = m.on_credentials(generation);
  REQUIRE(a.what == step::send);
  CHECK(a.delay == 0ns);
  return a;
}

}  // namespace

TEST_CASE("an unsigned request sends at once; a success is done and adds to the quota") {
  bench b;
  b.mp.signs = false;
  b.q.try_acquire(10);
  auto m = b.make();
  auto a = m.start();
  CHECK(a.what == step::send);
  a = m.on_reply(reply(kind::success), 0.5);
  CHECK(a.what == step::done);
  CHECK(a.generation == 0);
  CHECK(b.q.available() == 491);
  CHECK(m.sends() == 1);
  CHECK(m.attempt() == 1);
}

TEST_CASE("a provider without credentials fails the request") {
  bench b;
  auto m = b.make();
  CHECK(m.start().what == step::get_credentials);
  auto a = m.on_credentials_failed();
  CHECK(a.what == step::fail);
  CHECK(a.why == failure::credentials);
}

TEST_CASE("heal once and never twice: invalidate the signing generation, send again, then the refusal is the answer") {
  bench b;
  auto m = b.make();
  first_send(m, 7);
  auto a = m.on_reply(reply(kind::stale_credentials), 0.5);
  REQUIRE(a.what == step::invalidate);
  CHECK(a.generation == 7);
  a = m.on_credentials(8);
  REQUIRE(a.what == step::send);
  CHECK(a.delay == 0ns);
  // Outside the attempt count and the quota.
  CHECK(m.attempt() == 1);
  CHECK(b.q.available() == 500);
  CHECK(m.healed());
  a = m.on_reply(reply(kind::stale_credentials), 0.5);
  CHECK(a.what == step::fail);
  CHECK(a.why == failure::reply);
  CHECK(a.stop == errc::ok);
  CHECK(m.sends() == 2);
}

TEST_CASE("a heal that cures is confirmed to the provider with the new generation") {
  bench b;
  auto m = b.make();
  first_send(m, 3);
  REQUIRE(m.on_reply(reply(kind::stale_credentials), 0.5).what == step::invalidate);
  REQUIRE(m.on_credentials(4).what == step::send);
  auto a = m.on_reply(reply(kind::success), 0.5);
  CHECK(a.what == step::done);
  CHECK(a.generation == 4);
  // A success without a heal confirms nothing.
  auto plain = b.make();
  first_send(plain, 4);
  CHECK(plain.on_reply(reply(kind::success), 0.5).generation == 0);
}

TEST_CASE("a declined refresh (the same generation back) fails at once") {
  bench b;
  auto m = b.make();
  first_send(m, 5);
  REQUIRE(m.on_reply(reply(kind::stale_credentials), 0.5).what == step::invalidate);
  auto a = m.on_credentials(5);
  CHECK(a.what == step::fail);
  CHECK(a.why == failure::declined_refresh);
  CHECK(m.sends() == 1);
}

TEST_CASE("no heal without a refreshable provider, with a body that cannot be replayed, or unsigned") {
  SUBCASE("static keys") {
    bench b;
    b.mp.refreshable = false;
    auto m = b.make();
    first_send(m);
    auto a = m.on_reply(reply(kind::stale_credentials), 0.5);
    CHECK(a.what == step::fail);
    CHECK(a.why == failure::reply);
  }
  SUBCASE("a consumed stream") {
    bench b;
    b.mp.traits.replayable_body = false;
    auto m = b.make();
    first_send(m);
    auto f = reply(kind::stale_credentials);
    f.body_consumed = true;
    CHECK(m.on_reply(f, 0.5).what == step::fail);
  }
  SUBCASE("an unsigned fetch") {
    bench b;
    b.mp.signs = false;
    auto m = b.make();
    REQUIRE(m.start().what == step::send);
    CHECK(m.on_reply(reply(kind::stale_credentials), 0.5).what == step::fail);
  }
}

TEST_CASE("a conditional write is never resent by the retry loop; a 5xx or a lost reply is unknown_outcome") {
  bench b;
  b.mp.traits.conditional_write = true;
  SUBCASE("the reply lost after the request went out") {
    auto m = b.make();
    first_send(m);
    auto a = m.on_transport_failure(lost(true), 0.5);
    CHECK(a.what == step::fail);
    CHECK(a.why == failure::transport);
    CHECK(a.stop == errc::unknown_outcome);
  }
  SUBCASE("a 5xx (the classifier's unknown_outcome) is the answer") {
    auto m = b.make();
    first_send(m);
    auto a = m.on_reply(reply(kind::unknown_outcome), 0.5);
    CHECK(a.what == step::fail);
    CHECK(a.stop == errc::ok);
  }
  SUBCASE("a transient code to it is unknown_outcome too") {
    auto m = b.make();
    first_send(m);
    auto a = m.on_reply(reply(kind::transient), 0.5);
    CHECK(a.what == step::fail);
    CHECK(a.stop == errc::unknown_outcome);
  }
  SUBCASE("throttled and clock skew are answers, not resent") {
    auto m = b.make();
    first_send(m);
    CHECK(m.on_reply(reply(kind::throttled), 0.5).what == step::fail);
    auto s = b.make();
    first_send(s);
    auto f = reply(kind::clock_skew);
    f.skew = 3600s;
    CHECK(s.on_reply(f, 0.5).what == step::fail);
  }
  SUBCASE("a write that never left (connect refused) is safe to send again") {
    auto m = b.make();
    first_send(m);
    CHECK(m.on_transport_failure(lost(false), 0.5).what == step::send);
  }
  CHECK(b.q.available() >= 495);
}

TEST_CASE("clock skew: corrected once, at once, with the reply's offset; a second rejection is the answer") {
  bench b;
  auto m = b.make();
  first_send(m);
  auto f = reply(kind::clock_skew);
  f.skew = 3600s;
  auto a = m.on_reply(f, 0.5);
  REQUIRE(a.what == step::send);
  CHECK(a.delay == 0ns);
  REQUIRE(a.skew.has_value());
  CHECK(*a.skew == 3600s);
  CHECK(m.skew_corrected());
  CHECK(m.attempt() == 2);
  CHECK(b.q.available() == 495);
  a = m.on_reply(f, 0.5);
  CHECK(a.what == step::fail);
  CHECK(a.why == failure::reply);
  CHECK(a.stop == errc::ok);
  // Corrected, then a success: the retry's tokens come back.
  auto ok = b.make();
  first_send(ok);
  REQUIRE(ok.on_reply(f, 0.5).what == step::send);
  CHECK(ok.on_reply(reply(kind::success), 0.5).what == step::done);
  CHECK(b.q.available() == 495);
}

TEST_CASE("the quota as the standard mode says: 5 a retry, 10 after a timeout, refunded on success") {
  bench b;
  auto m = b.make();
  first_send(m);
  auto a = m.on_reply(reply(kind::transient), 0.5);
  REQUIRE(a.what == step::send);
  CHECK(a.delay == 500ms);  // 0.5 x 2^0 x 1 s
  CHECK(b.q.available() == 495);
  transport_facts t = lost();
  t.timed_out = true;
  a = m.on_transport_failure(t, 1.0);
  REQUIRE(a.what == step::send);
  CHECK(a.delay == 2s);  // 1.0 x 2^1 x 1 s
  CHECK(b.q.available() == 485);
  CHECK(m.attempt() == 3);
  CHECK(m.on_reply(reply(kind::success), 0.5).what == step::done);
  CHECK(b.q.available() == 495);  // the last retry's 10 refunded
}

TEST_CASE("the quota runs out: attempts_exhausted, then retry_quota_exhausted") {
  bench b;
  b.p.quota_capacity = 12;
  b.q = floe::retry::quota(b.p);
  auto m = b.make();
  first_send(m);
  CHECK(m.on_reply(reply(kind::throttled), 0.1).what == step::send);
  CHECK(m.on_reply(reply(kind::throttled), 0.1).what == step::send);
  auto a = m.on_reply(reply(kind::throttled), 0.1);
  CHECK(a.what == step::fail);
  CHECK(a.why == failure::reply);
  CHECK(a.stop == errc::attempts_exhausted);
  CHECK(m.attempt() == 3);
  CHECK(b.q.available() == 2);
  auto next = b.make();
  first_send(next);
  a = next.on_reply(reply(kind::throttled), 0.1);
  CHECK(a.what == step::fail);
  CHECK(a.stop == errc::retry_quota_exhausted);
  CHECK(next.attempt() == 1);
}

TEST_CASE("throttling and a service's own retryable code are retried with back-off") {
  bench b;
  b.p.base_delay = 100ms;
  auto m = b.make();
  first_send(m);
  auto a = m.on_reply(reply(kind::throttled), 1.0);
  REQUIRE(a.what == step::send);
  CHECK(a.delay == 100ms);
  // An STS IDPCommunicationError classified as a client error: retried as
  // throttling because the service says so.
  auto f = reply(kind::client_error);
  f.service_retryable = true;
  a = m.on_reply(f, 1.0);
  REQUIRE(a.what == step::send);
  CHECK(a.delay == 200ms);
  a = m.on_reply(f, 1.0);
  CHECK(a.what == step::fail);
  CHECK(a.stop == errc::attempts_exhausted);
  // Without the service's word, a client error is the answer.
  auto plain = b.make();
  first_send(plain);
  auto c = plain.on_reply(reply(kind::client_error), 1.0);
  CHECK(c.what == step::fail);
  CHECK(c.stop == errc::ok);
}

TEST_CASE("transport failures: retried while allowed; a final one (a reply over a limit) at once") {
  bench b;
  auto m = b.make();
  first_send(m);
  CHECK(m.on_transport_failure(lost(), 0.0).what == step::send);
  CHECK(m.on_transport_failure(lost(), 0.0).what == step::send);
  auto a = m.on_transport_failure(lost(), 0.0);
  CHECK(a.what == step::fail);
  CHECK(a.why == failure::transport);
  CHECK(a.stop == errc::attempts_exhausted);
  auto f = b.make();
  first_send(f);
  transport_facts t = lost();
  t.final = true;
  a = f.on_transport_failure(t, 0.0);
  CHECK(a.what == step::fail);
  CHECK(a.stop == errc::ok);
  CHECK(f.sends() == 1);
}

TEST_CASE("a consumed body that cannot be replayed is never sent again") {
  bench b;
  b.mp.traits.replayable_body = false;
  auto m = b.make();
  first_send(m);
  transport_facts t = lost();
  t.body_consumed = true;
  auto a = m.on_transport_failure(t, 0.0);
  CHECK(a.what == step::fail);
  CHECK(a.stop == errc::body_not_replayable);
  auto r = b.make();
  first_send(r);
  auto f = reply(kind::transient);
  f.body_consumed = true;
  CHECK(r.on_reply(f, 0.0).stop == errc::body_not_replayable);
}

// The regression of issue 30: a download's sink is a stream, and the
// machine once refused every resend of a request with such a sink, so a
// streamed GET neither healed nor followed a redirect. The sink's bytes are
// a fact of the attempt: none taken, the request is sent again like any.
TEST_CASE("a stream sink that took no byte heals, follows a redirect and is retried") {
  SUBCASE("heal") {
    bench b;  // the traits of a GET into a stream: nothing says otherwise
    auto m = b.make();
    first_send(m, 7);
    auto a = m.on_reply(reply(kind::stale_credentials), 0.5);  // an error reply never reaches the sink
    REQUIRE(a.what == step::invalidate);
    CHECK(a.generation == 7);
    a = m.on_credentials(8);
    CHECK(a.what == step::send);
    CHECK(m.on_reply(reply(kind::success), 0.5).generation == 8);
  }
  SUBCASE("redirect") {
    bench b;
    auto m = b.make();
    first_send(m);
    CHECK(m.on_reply(reply(kind::redirect), 0.5).what == step::ask_service);
  }
  SUBCASE("a reply that broke before its body") {
    bench b;
    auto m = b.make();
    first_send(m);
    CHECK(m.on_transport_failure(lost(), 0.0).what == step::send);
  }
}

TEST_CASE("a stream sink that took bytes is never sent again: neither healed, redirected nor retried") {
  bench b;
  auto stale = b.make();
  first_send(stale);
  auto f = reply(kind::stale_credentials);
  f.sink_dirty = true;
  auto a = stale.on_reply(f, 0.5);
  CHECK(a.what == step::fail);
  CHECK(stale.sends() == 1);
  auto moved = b.make();
  first_send(moved);
  auto r = reply(kind::redirect);
  r.sink_dirty = true;
  CHECK(moved.on_reply(r, 0.5).what == step::fail);
  auto broke = b.make();
  first_send(broke);
  transport_facts t = lost();
  t.sink_dirty = true;
  a = broke.on_transport_failure(t, 0.0);
  CHECK(a.what == step::fail);
  CHECK(a.stop == errc::body_not_replayable);
}

TEST_CASE("a redirect is offered to the service once") {
  bench b;
  auto m = b.make();
  first_send(m);
  auto a = m.on_reply(reply(kind::redirect), 0.5);
  REQUIRE(a.what == step::ask_service);
  a = m.on_service(true);
  CHECK(a.what == step::send);
  CHECK(m.redirected());
  CHECK(m.attempt() == 1);
  a = m.on_reply(reply(kind::redirect), 0.5);
  CHECK(a.what == step::fail);
  CHECK(a.why == failure::reply);
  auto declined = b.make();
  first_send(declined);
  REQUIRE(declined.on_reply(reply(kind::redirect), 0.5).what == step::ask_service);
  CHECK(declined.on_service(false).what == step::fail);
}

TEST_CASE("a non-retryable reply is the answer at once") {
  for (auto k : {kind::not_found, kind::denied, kind::precondition_failed, kind::conflict, kind::unsupported}) {
    bench b;
    auto m = b.make();
    first_send(m);
    auto a = m.on_reply(reply(k), 0.5);
    CHECK(a.what == step::fail);
    CHECK(a.why == failure::reply);
    CHECK(a.stop == errc::ok);
    CHECK(b.q.available() == 500);
  }
}

}  // namespace service_request_machine_test
