// How a failed request is put into words (service/diagnostics.hpp).
#include <floe/service/diagnostics.hpp>

#include <boost/asio/error.hpp>

#include <doctest/doctest.h>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace service_diagnostics_test {

using namespace floe::service;
using floe::errc;

namespace {

floe::error cause(boost::system::error_code ec, std::string words = {}) {
  floe::error e(ec);
  e.diag.message = std::move(words);
  return e;
}

}  // namespace

TEST_CASE("attempts exhausted: the last cause and the number of attempts, no \"not retried\"") {
  auto e = transport_error(cause(boost::asio::error::connection_refused, "connecting to 127.0.0.1:1: connection refused"),
                           errc::attempts_exhausted, 3);
  add_context(e, "ListObjectsV2", "bucket");
  CHECK(e.code == boost::asio::error::connection_refused);
  CHECK(e.diag.attempt == 3);
  CHECK(e.diag.to_string() == "ListObjectsV2 bucket: connecting to 127.0.0.1:1: connection refused (after 3 attempts)");
  // Without words of its own, the operating system's reason.
  auto reset = transport_error(cause(boost::asio::error::connection_reset), errc::attempts_exhausted, 3);
  CHECK(reset.diag.message == "connection reset by peer");
}

TEST_CASE("stopped early: why, as \"not retried\" after one attempt, \"not retried further\" after more") {
  auto once = transport_error(cause(boost::asio::error::connection_reset), errc::retry_quota_exhausted, 1);
  CHECK(once.diag.message == "connection reset by peer; not retried: " +
                                 floe::make_error_code(errc::retry_quota_exhausted).message());
  auto more = transport_error(cause(boost::asio::error::connection_reset), errc::body_not_replayable, 2);
  CHECK(more.diag.message.find("not retried further: ") != std::string::npos);
  // A failure that is itself the answer says nothing more.
  auto final = transport_error(cause(floe::make_error_code(errc::reply_too_large), "the reply head is over 64 KiB"),
                               errc::ok, 1);
  CHECK(final.diag.message == "the reply head is over 64 KiB");
}

TEST_CASE("a conditional write's lost reply is unknown_outcome, saying what cut it") {
  auto e = transport_error(cause(boost::asio::error::eof), errc::unknown_outcome, 1);
  CHECK(e.code == errc::unknown_outcome);
  CHECK(e.diag.message == "the reply to a conditional write was lost: the server closed the connection");
}

TEST_CASE("a reply that was the answer: the stop reason added, unknown_outcome as its code") {
  floe::error e(errc::transient, "We encountered an internal error.");
  add_stop_reason(e, errc::unknown_outcome, 1);
  CHECK(e.code == errc::unknown_outcome);
  floe::error q(errc::throttled, "slow down");
  add_stop_reason(q, errc::retry_quota_exhausted, 2);
  CHECK(q.diag.message.find("slow down; not retried further: ") == 0);
  CHECK(q.diag.attempt == 2);
  floe::error a(errc::throttled, "slow down");
  add_stop_reason(a, errc::attempts_exhausted, 3);
  CHECK(a.diag.message == "slow down");
  CHECK(a.diag.to_string() == "slow down (after 3 attempts)");
}

TEST_CASE("the resource has one form: bkt/k, bkt, or the name given") {
  CHECK(resource_name("bkt", std::string_view("dir/k")) == "bkt/dir/k");
  CHECK(resource_name("bkt", std::nullopt) == "bkt");
  CHECK(resource_name("arn:aws:iam::123456789012:role/r", std::nullopt) == "arn:aws:iam::123456789012:role/r");
  floe::error e(errc::not_found);
  add_context(e, "HeadObject", "bkt", std::string_view("k"));
  CHECK(e.diag.operation == "HeadObject");
  CHECK(e.diag.resource == "bkt/k");
  floe::error named(errc::not_found);
  named.diag.resource = "other";
  add_context(named, "HeadObject", "bkt", std::string_view("k"));
  CHECK(named.diag.resource == "other");
}

TEST_CASE("a declined refresh names the credential source") {
  floe::error e(errc::stale_credentials);
  e.diag.code = "InvalidAccessKeyId";
  e.diag.message = "The AWS Access Key Id you provided does not exist in our records.";
  add_declined_refresh(e, "web identity (role r, token file /t)");
  CHECK(e.diag.message ==
        "The AWS Access Key Id you provided does not exist in our records.; credentials from web identity (role r, "
        "token file /t) were refreshed recently without curing this; not retried while that refresh backs off");
}

}  // namespace service_diagnostics_test
