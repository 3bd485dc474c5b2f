// The connections' deadline bookkeeping: the watchdog and a connection's
// deadline, on an io_context with no socket connected.
#include <floe/http/connection.hpp>
#include <floe/http/deadline.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <doctest/doctest.h>

#include <chrono>
#include <functional>
#include <memory>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace http_deadline_test {

using namespace floe::http;

TEST_CASE("deadline: a transfer seen after the deadline passed restarts the clock; a stall after it times out again") {
  // The watchdog can find a connection past its deadline while the
  // completion of a successful transfer is already queued: it marks the
  // connection timed out with nothing to cancel. The transfer did move
  // bytes, so progress() must watch the connection again rather than leave
  // the rest of the exchange without a deadline.
  using namespace std::chrono_literals;
  boost::asio::io_context io;
  auto dog = std::make_shared<detail::watchdog>(io.get_executor());
  detail::connection c(io.get_executor(), dog);
  c.watch(20ms);
  io.run_for(10s);  // returns once the deadline has fired and nothing is left to wait for
  REQUIRE(io.stopped());
  CHECK(c.timed_out());
  c.progress();
  CHECK_FALSE(c.timed_out());
  io.restart();
  io.run_for(10s);
  CHECK(io.stopped());
  CHECK(c.timed_out());  // watched again: no further progress, so the deadline fired once more
}

namespace {

// Calls `step` every `every` until the connection times out or `limit` has
// passed; returns how long it ran.
template <class Step>
std::chrono::steady_clock::duration drive(boost::asio::io_context& io, detail::connection& c,
                                          std::chrono::milliseconds every, std::chrono::milliseconds limit, Step step) {
  auto const t0 = std::chrono::steady_clock::now();
  boost::asio::steady_timer t(io);
  std::function<void()> tick = [&] {
    if (c.timed_out() || std::chrono::steady_clock::now() - t0 >= limit) {
      c.stop_watch();
      return;
    }
    step();
    t.expires_after(every);
    t.async_wait([&](boost::system::error_code) { tick(); });
  };
  tick();
  io.run();
  return std::chrono::steady_clock::now() - t0;
}

}  // namespace

TEST_CASE("deadline: a reply head trickling a byte at a time still times out when its bound passes") {
  using namespace std::chrono_literals;
  boost::asio::io_context io;
  auto dog = std::make_shared<detail::watchdog>(io.get_executor());
  detail::connection c(io.get_executor(), dog);
  c.watch(10s);       // idle: never reached, a byte moves every 5 ms
  c.watch_head(60ms);
  auto took = drive(io, c, 5ms, 5s, [&] {
    c.progress();
    c.count(1);
  });
  REQUIRE(c.timed_out());
  CHECK(c.expired() == detail::deadline::expiry::head);
  CHECK(c.expiry_words() == "timed out: the reply head took longer than 60 ms");
  CHECK(took < 5s);
}

TEST_CASE("deadline: end_head lifts the head bound; the idle limit still holds") {
  using namespace std::chrono_literals;
  boost::asio::io_context io;
  auto dog = std::make_shared<detail::watchdog>(io.get_executor());
  detail::connection c(io.get_executor(), dog);
  c.watch(10s);
  c.watch_head(40ms);
  c.end_head();
  (void)drive(io, c, 5ms, 200ms, [&] { c.progress(); });
  CHECK_FALSE(c.timed_out());
  io.restart();
  c.watch(30ms);
  (void)drive(io, c, 5ms, 5s, [] {});  // no progress: the idle limit
  REQUIRE(c.timed_out());
  CHECK(c.expired() == detail::deadline::expiry::idle);
  CHECK(c.expiry_words() == "timed out after 30 ms");
}

TEST_CASE("deadline: a body slower than the low-speed limit over a window times out; a fast one does not") {
  using namespace std::chrono_literals;
  {
    boost::asio::io_context io;
    auto dog = std::make_shared<detail::watchdog>(io.get_executor());
    detail::connection c(io.get_executor(), dog);
    c.watch(10s);
    c.watch_speed(100'000, 50ms);  // 5,000 bytes per 50 ms window
    (void)drive(io, c, 5ms, 5s, [&] {
      c.progress();
      c.count(10);  // ~2,000 bytes/s
    });
    REQUIRE(c.timed_out());
    CHECK(c.expired() == detail::deadline::expiry::speed);
    CHECK(c.expiry_words() == "timed out: slower than 100000 bytes/s for 50 ms");
  }
  {
    boost::asio::io_context io;
    auto dog = std::make_shared<detail::watchdog>(io.get_executor());
    detail::connection c(io.get_executor(), dog);
    c.watch(10s);
    c.watch_speed(1'000, 30ms);  // 30 bytes per window
    (void)drive(io, c, 5ms, 300ms, [&] {
      c.progress();
      c.count(1000);
    });
    CHECK_FALSE(c.timed_out());  // ten windows and more, each fast enough
  }
}

}  // namespace http_deadline_test
