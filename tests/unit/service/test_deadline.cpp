// The request machine's deadline (service/request_machine.hpp) with a fake
// clock: the runner tells the time, the machine refuses what would pass
// the deadline. And how its error is put into words.
#include <floe/service/diagnostics.hpp>
#include <floe/service/request_machine.hpp>

#include <doctest/doctest.h>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace service_deadline_test {

using namespace floe::service;
using floe::errc;
using floe::errors::kind;
using namespace std::chrono_literals;
using steady = std::chrono::steady_clock;

namespace {

// A fake clock: a point on the steady clock moved by hand.
struct fake_clock {
  steady::time_point t = steady::time_point(1000s);
  void advance(std::chrono::nanoseconds d) { t += d; }
};

struct bench {
  floe::retry::standard_params p;
  floe::retry::quota q{p};
  request_machine::params mp;
  fake_clock clock;

  bench() { mp.signs = false; }
  request_machine make(std::chrono::nanoseconds budget) {
    mp.deadline = clock.t + budget;
    request_machine m(p, q, mp);
    m.at(clock.t);
    return m;
  }
};

reply_facts reply(kind k) {
  reply_facts f;
  f.kind = k;
  return f;
}

}  // namespace

TEST_CASE("deadline: within the budget the machine decides as without one") {
  bench b;
  auto m = b.make(10s);
  auto a = m.start();
  REQUIRE(a.what == step::send);
  b.clock.advance(100ms);
  m.at(b.clock.t);
  a = m.on_reply(reply(kind::transient), 0.5);  // back-off 0.5 x 1 s: ends well inside
  REQUIRE(a.what == step::send);
  CHECK(a.delay == 500ms);
  b.clock.advance(a.delay + 100ms);
  m.at(b.clock.t);
  a = m.on_reply(reply(kind::success), 0.5);
  CHECK(a.what == step::done);
  CHECK(m.attempt() == 2);
}

TEST_CASE("deadline: a back-off that would end past it is not waited; the request fails with timeout") {
  bench b;
  auto m = b.make(1s);
  auto a = m.start();
  REQUIRE(a.what == step::send);
  b.clock.advance(700ms);
  m.at(b.clock.t);
  a = m.on_reply(reply(kind::throttled), 0.5);  // 500 ms back-off would end at 1.2 s
  CHECK(a.what == step::fail);
  CHECK(a.why == failure::deadline);
  CHECK(a.stop == errc::timeout);
  CHECK(m.sends() == 1);
  CHECK(m.attempt() == 1);         // no retry counted
  CHECK(b.q.available() == 500);  // nor charged to the quota
}

TEST_CASE("deadline: no attempt starts at or past it, whatever else allows one") {
  bench b;
  auto m = b.make(1s);
  auto a = m.start();
  REQUIRE(a.what == step::send);
  b.clock.advance(1s);
  m.at(b.clock.t);
  floe::service::transport_facts t;
  t.reached_server = false;
  a = m.on_transport_failure(t, 0.0);  // a zero back-off: the retry would start at once
  CHECK(a.what == step::fail);
  CHECK(a.why == failure::deadline);
  CHECK(m.sends() == 1);
}

TEST_CASE("deadline: a redirect followed past it is not sent") {
  bench b;
  auto m = b.make(1s);
  (void)m.start();
  auto a = m.on_reply(reply(kind::redirect), 0.5);
  REQUIRE(a.what == step::ask_service);
  b.clock.advance(2s);
  m.at(b.clock.t);
  a = m.on_service(true);
  CHECK(a.what == step::fail);
  CHECK(a.why == failure::deadline);
}

TEST_CASE("deadline: a signed request whose credentials came after it is not sent") {
  bench b;
  b.mp.signs = true;
  auto m = b.make(200ms);
  auto a = m.start();
  REQUIRE(a.what == step::get_credentials);
  b.clock.advance(300ms);
  m.at(b.clock.t);
  a = m.on_credentials(3);
  CHECK(a.what == step::fail);
  CHECK(a.why == failure::deadline);
  CHECK(m.sends() == 0);
}

TEST_CASE("deadline: an attempt cut by the runner fails with timeout") {
  bench b;
  auto m = b.make(1s);
  (void)m.start();
  auto a = m.on_deadline();
  CHECK(a.what == step::fail);
  CHECK(a.why == failure::deadline);
  CHECK(a.stop == errc::timeout);
}

TEST_CASE("deadline: without one the clock is never needed and nothing changes") {
  floe::retry::standard_params p;
  floe::retry::quota q{p};
  request_machine::params mp;
  mp.signs = false;
  request_machine m(p, q, mp);  // at() never called
  REQUIRE(m.start().what == step::send);
  auto a = m.on_reply(reply(kind::transient), 0.99);
  CHECK(a.what == step::send);
  CHECK(a.delay > 900ms);
}

TEST_CASE("deadline: the error names the budget, the attempts and what the last one met") {
  floe::error last(errc::transient, "connecting to 127.0.0.1:1: connection refused");
  auto e = deadline_error(2500ms, 3, last);
  CHECK(e.code == floe::make_error_code(errc::timeout));
  CHECK(e.diag.attempt == 3);
  CHECK(e.diag.message == "deadline of 2.5 s ran out (the last one: connecting to 127.0.0.1:1: connection refused)");
  CHECK(e.diag.to_string().find("after 3 attempts") != std::string::npos);
  auto one = deadline_error(250ms, 1, floe::error{});
  CHECK(one.diag.message == "deadline of 250 ms ran out during the first attempt");
  floe::error reply(errc::throttled, "Please reduce your request rate.");
  reply.diag.http_status = 503;
  auto r = deadline_error(1s, 2, reply);
  CHECK(r.diag.message == "deadline of 1 s ran out (the last one: HTTP 503 Please reduce your request rate.)");
  CHECK(duration_words(90s) == "90 s");
  CHECK(duration_words(1500us) == "1 ms");
}

}  // namespace service_deadline_test
