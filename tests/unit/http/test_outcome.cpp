// How the end of an attempt is put into words: the operating system's
// reason for a transport failure and the attempts made, never "not retried"
// after retries ran out. settle() and the words it uses, with no socket.
#include <floe/http/error_words.hpp>
#include <floe/http/outcome.hpp>

#include <boost/asio/error.hpp>

#include <doctest/doctest.h>

#include <random>
#include <string>

using namespace floe::http;
using floe::errc;
namespace retry = floe::retry;
namespace asio_error = boost::asio::error;

TEST_CASE("error_reason: the operating system's or the resolver's reason, in lower case") {
  CHECK(error_reason(asio_error::connection_refused) == "connection refused");
  CHECK(error_reason(asio_error::connection_reset) == "connection reset by peer");
  CHECK(error_reason(asio_error::host_not_found) == "name does not resolve");
  CHECK(error_reason(asio_error::host_not_found_try_again).starts_with("name does not resolve"));
  CHECK(error_reason(asio_error::eof) == "the server closed the connection");
  CHECK(error_reason(asio_error::network_unreachable) == "network is unreachable");
  CHECK(error_reason(errc::timeout) == "timed out");
  CHECK(error_reason({}).empty());
  CHECK(format_duration(std::chrono::seconds(30)) == "30 s");
  CHECK(format_duration(std::chrono::milliseconds(700)) == "700 ms");
  CHECK(format_duration(std::chrono::milliseconds(1500)) == "1500 ms");
}

namespace {

// Settles the same failed attempt until the exchange is over; returns the
// number of attempts that took.
struct exchange {
  client_config cfg;
  retry::quota quota{cfg.retry};
  retry::operation op{cfg.retry, quota};
  std::minstd_rand rng{1};
  std::chrono::seconds skew{0};
  request req;
  response res;
  floe::error out;

  exchange() {
    cfg.random = [] { return 0.0; };
    req.method = "GET";
    req.target = "/b?list-type=2";
    req.operation = "ListObjectsV2";
  }
  unsigned run(detail::attempt_state const& a) {
    for (unsigned n = 1; n <= 10; ++n)
      if (detail::settle(cfg, rng, skew, op, req.traits, req, res, a, out).over) return n;
    return 0;
  }
};

detail::attempt_state failed(boost::system::error_code ec, std::string why = {}) {
  detail::attempt_state a;
  a.ec = ec;
  a.why = std::move(why);
  return a;
}

}  // namespace

TEST_CASE("a connection refused three times says so, and after how many attempts") {
  exchange x;
  REQUIRE(x.run(failed(asio_error::connection_refused, "connecting to 127.0.0.1:1: connection refused")) == 3);
  CHECK(x.out.code == asio_error::connection_refused);
  CHECK(x.out.diag.message == "connecting to 127.0.0.1:1: connection refused");
  CHECK(x.out.diag.attempt == 3);
  CHECK(x.res.attempts == 3);
  CHECK(x.out.diag.to_string() ==
        "ListObjectsV2 /b?list-type=2: connecting to 127.0.0.1:1: connection refused (after 3 attempts)");
  CHECK(x.out.what().find("not retried") == std::string::npos);
}

TEST_CASE("a name that does not resolve, and a failure with no words of its own, give the reason") {
  {
    exchange x;
    REQUIRE(x.run(failed(asio_error::host_not_found, "resolving no-such-host.invalid:80: name does not resolve")) == 3);
    CHECK(x.out.diag.to_string() ==
          "ListObjectsV2 /b?list-type=2: resolving no-such-host.invalid:80: name does not resolve (after 3 attempts)");
  }
  {
    exchange x;
    REQUIRE(x.run(failed(asio_error::connection_reset)) == 3);
    CHECK(x.out.diag.message == "connection reset by peer");
  }
  {
    exchange x;  // an idle timeout: io_failure words it after the watched limit
    auto a = failed(errc::timeout, "timed out after 30 s");
    a.timed_out = true;
    a.reached_server = true;
    REQUIRE(x.run(a) == 3);
    CHECK(x.out.code == errc::timeout);
    CHECK(x.out.diag.to_string() == "ListObjectsV2 /b?list-type=2: timed out after 30 s (after 3 attempts)");
  }
}

TEST_CASE("one attempt: no count; a stop before attempts ran out says why it was not retried") {
  {
    exchange x;
    x.cfg.retry.max_attempts = 1;
    REQUIRE(x.run(failed(asio_error::connection_refused, "connecting to h:1: connection refused")) == 1);
    CHECK(x.out.diag.to_string() == "ListObjectsV2 /b?list-type=2: connecting to h:1: connection refused");
  }
  {
    exchange x;
    x.cfg.retry.quota_capacity = 0;
    x.quota = retry::quota(x.cfg.retry);
    REQUIRE(x.run(failed(asio_error::connection_refused, "connecting to h:1: connection refused")) == 1);
    CHECK(x.out.diag.message == "connecting to h:1: connection refused; not retried: retry quota exhausted");
  }
  {
    exchange x;
    x.cfg.retry.quota_capacity = 5;  // one retry's worth
    x.quota = retry::quota(x.cfg.retry);
    REQUIRE(x.run(failed(asio_error::connection_refused, "connecting to h:1: connection refused")) == 2);
    CHECK(x.out.diag.to_string() ==
          "ListObjectsV2 /b?list-type=2: connecting to h:1: connection refused; not retried further: retry quota "
          "exhausted (after 2 attempts)");
  }
  {
    exchange x;
    x.req.traits.replayable_body = false;
    auto a = failed(asio_error::connection_reset);
    a.reached_server = true;
    a.body_consumed = true;
    REQUIRE(x.run(a) == 1);
    CHECK(x.out.diag.message == "connection reset by peer; not retried: request body cannot be replayed");
  }
}

TEST_CASE("a conditional write whose reply was lost says what cut it") {
  exchange x;
  x.req.traits.conditional_write = true;
  auto a = failed(asio_error::connection_reset);
  a.reached_server = true;
  REQUIRE(x.run(a) == 1);
  CHECK(x.out.code == errc::unknown_outcome);
  CHECK(x.out.diag.message == "the reply to a conditional write was lost: connection reset by peer");
}

TEST_CASE("a reply is the answer, not an error, whatever its status") {
  exchange x;
  x.res.status = 404;
  detail::attempt_state a;
  a.reached_server = true;
  REQUIRE(x.run(a) == 1);
  CHECK_FALSE(x.out.code);
  CHECK(x.res.kind == floe::errors::kind::not_found);
}
