// watch::denial_gate: a refusal that outlives the client's own heal backs
// off exponentially up to a cap, logs once per step, and ends by itself.
#include <floe/watch/denial.hpp>

#include <floe/error.hpp>

#include <doctest/doctest.h>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace watch_denial_test {

using namespace floe::watch;
using namespace std::chrono_literals;
using tp = denial_gate::time_point;

TEST_CASE("steps double from initial up to the cap, one log line each") {
  denial_gate g({1000ms, 8000ms});
  tp now{};
  CHECK_FALSE(g.denied());
  std::vector<long> waits;
  for (int i = 0; i < 6; ++i) {
    auto s = g.on_denied(now, "HeadObject lake/a: 403 AccessDenied");
    CHECK(s.log_line);
    CHECK(s.number == unsigned(i + 1));
    waits.push_back(long(s.wait.count()));
    now += s.wait;
  }
  CHECK(waits == std::vector<long>{1000, 2000, 4000, 8000, 8000, 8000});
  CHECK(g.denied());
  CHECK(g.reason() == "HeadObject lake/a: 403 AccessDenied");
  CHECK(g.episodes() == 1);
}

TEST_CASE("refusals during a step's wait join it: same retry time, no line, no growth") {
  denial_gate g({1000ms, 60000ms});
  tp now{};
  auto first = g.on_denied(now, "a");
  CHECK(first.log_line);
  auto joined = g.on_denied(now + 300ms, "b");
  CHECK_FALSE(joined.log_line);
  CHECK(joined.number == 1);
  CHECK(joined.wait == 700ms);
  CHECK(g.reason() == "a");
  auto next = g.on_denied(now + 1000ms, "c");
  CHECK(next.log_line);
  CHECK(next.number == 2);
  CHECK(next.wait == 2000ms);
}

TEST_CASE("the first success ends the denial, once; a new denial starts from the first step") {
  denial_gate g({500ms, 4000ms});
  CHECK_FALSE(g.on_success());
  tp now{};
  g.on_denied(now, "x");
  g.on_denied(now + 500ms, "x");
  CHECK(g.steps() == 2);
  CHECK(g.on_success());
  CHECK_FALSE(g.on_success());
  CHECK_FALSE(g.denied());
  CHECK(g.reason().empty());
  auto s = g.on_denied(now + 10s, "y");
  CHECK(s.number == 1);
  CHECK(s.wait == 500ms);
  CHECK(g.episodes() == 2);
}

TEST_CASE("what counts as a denial") {
  using floe::errc;
  using floe::make_error_code;
  CHECK(is_denial(make_error_code(errc::denied)));
  CHECK(is_denial(make_error_code(errc::stale_credentials)));
  CHECK(is_denial(make_error_code(errc::credentials_unavailable)));
  CHECK_FALSE(is_denial(make_error_code(errc::not_found)));
  CHECK_FALSE(is_denial(make_error_code(errc::transient)));
  CHECK_FALSE(is_denial(make_error_code(errc::precondition_failed)));
}

}  // namespace watch_denial_test
