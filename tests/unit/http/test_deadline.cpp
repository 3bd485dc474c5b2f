// The connections' deadline bookkeeping: the watchdog and a connection's
// deadline, on an io_context with no socket connected.
#include <floe/http/connection.hpp>
#include <floe/http/deadline.hpp>

#include <boost/asio/io_context.hpp>

#include <doctest/doctest.h>

#include <chrono>
#include <memory>

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
