#include <floe/error.hpp>
#include <floe/result.hpp>

#include <doctest/doctest.h>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace core_error_test {

TEST_CASE("errc codes carry floe's category and readable messages") {
  boost::system::error_code ec = floe::errc::precondition_failed;
  CHECK(ec.category().name() == std::string("floe"));
  CHECK(ec.message() == "precondition failed");
  CHECK(ec != floe::errc::conflict);
}

TEST_CASE("diagnostics render one line with operation, resource, status, code, message, request id") {
  floe::diagnostics d;
  d.operation = "PutObject";
  d.resource = "b/k";
  d.http_status = 409;
  d.code = "ConcurrentModification";
  d.message = "busy";
  d.request_id = "tx1";
  CHECK(d.to_string() == "PutObject b/k: 409 ConcurrentModification: busy (request id tx1)");
  d.attempt = 3;
  CHECK(d.to_string() == "PutObject b/k: 409 ConcurrentModification: busy (request id tx1; after 3 attempts)");
}

TEST_CASE("diagnostics say how many attempts were made, and nothing of a single one") {
  floe::diagnostics d;
  d.operation = "ListObjectsV2";
  d.resource = "b";
  d.message = "connecting to 127.0.0.1:1: connection refused";
  CHECK(d.to_string() == "ListObjectsV2 b: connecting to 127.0.0.1:1: connection refused");
  d.attempt = 1;
  CHECK(d.to_string() == "ListObjectsV2 b: connecting to 127.0.0.1:1: connection refused");
  d.attempt = 3;
  CHECK(d.to_string() == "ListObjectsV2 b: connecting to 127.0.0.1:1: connection refused (after 3 attempts)");
  floe::diagnostics bare;
  bare.attempt = 2;
  CHECK(bare.to_string() == "(after 2 attempts)");
}

TEST_CASE("result<T> holds a value or an error, and value() throws floe::exception") {
  floe::result<int> ok = 5;
  CHECK(ok.has_value());
  CHECK(*ok == 5);
  floe::result<int> bad = floe::error(floe::errc::not_found, "no such key");
  CHECK(bad.has_error());
  CHECK(bad.error().code == floe::errc::not_found);
  CHECK_THROWS_AS((void)bad.value(), floe::exception);
  try {
    (void)bad.value();
  } catch (floe::exception const& e) {
    CHECK(std::string(e.what()).find("no such key") != std::string::npos);
  }
}

TEST_CASE("error::clear leaves no code and no diagnostics behind") {
  floe::error e(floe::errc::conflict, "busy");
  e.diag.operation = "PutObject";
  e.diag.resource = "b/k";
  e.diag.http_status = 409;
  e.diag.code = "ConcurrentModification";
  e.diag.request_id = "tx1";
  e.diag.host_id = "h1";
  e.diag.attempt = 2;
  e.clear();
  CHECK_FALSE(e.code);
  CHECK(e.diag.to_string() == floe::diagnostics{}.to_string());
  CHECK(e.what() == floe::error{}.what());
  CHECK(e.diag.http_status == 0);
  CHECK(e.diag.attempt == 0);
  CHECK(e.diag.operation.empty());
  CHECK(e.diag.code.empty());
  CHECK(e.diag.message.empty());
  CHECK(e.diag.request_id.empty());
  CHECK(e.diag.host_id.empty());
  CHECK(e.diag.resource.empty());
}

}  // namespace core_error_test
