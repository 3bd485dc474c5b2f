// How a transport failure is put into words: the operating system's or the
// resolver's reason, and a duration. (What a request driver adds — the
// attempts, why it was not retried further — is tests/unit/service.)
#include <floe/error.hpp>
#include <floe/http/error_words.hpp>

#include <boost/asio/error.hpp>

#include <doctest/doctest.h>

#include <string>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace http_error_words_test {

using namespace floe::http;
using floe::errc;
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

}  // namespace http_error_words_test
