#include <floe/errors/reply_error.hpp>

#include <doctest/doctest.h>

#include <string>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace errors_reply_error_test {

namespace errors = floe::errors;
using errors::kind;
using floe::errc;

TEST_CASE("make_error: errc from the kind, header ids preferred over the body's") {
  floe::xml::error_body b;
  b.code = "NoSuchKey";
  b.message = "The specified key does not exist.";
  b.request_id = "body-rid";
  b.host_id = "body-hid";
  b.resource = "/b/k";
  auto e = errors::make_error({kind::not_found, "404"}, 404, &b,
                              {.request_id = "hdr-rid", .operation = "GetObject", .attempt = 2});
  CHECK(e.code == errc::not_found);
  CHECK(e.diag.http_status == 404);
  CHECK(e.diag.code == "NoSuchKey");
  CHECK(e.diag.request_id == "hdr-rid");
  CHECK(e.diag.host_id == "body-hid");
  CHECK(e.diag.resource == "/b/k");
  CHECK(e.diag.to_string() ==
        "GetObject /b/k: 404 NoSuchKey: The specified key does not exist. (request id hdr-rid; after 2 attempts)");
  auto none = errors::make_error({kind::denied, "403"}, 403, nullptr, {});
  CHECK(none.code == errc::denied);
  CHECK(none.diag.code.empty());
  CHECK(errors::make_error({kind::success, "2xx"}, 200, nullptr, {}).code == errc::ok);
  CHECK(errors::make_error({kind::redirect, "3xx"}, 301, nullptr, {}).code == errc::service_error);
}

TEST_CASE("server text is made safe for one log line") {
  floe::xml::error_body b;
  b.code = "Bad\nCode";
  b.message = "line1\r\nline2\x1b[31m" + std::string(2000, 'x');
  auto e = errors::make_error({kind::client_error, "4xx"}, 400, &b, {});
  CHECK(e.diag.code == "Bad Code");
  CHECK(e.diag.message.find('\n') == std::string::npos);
  CHECK(e.diag.message.find('\x1b') == std::string::npos);
  CHECK(e.diag.message.size() <= 515);
  CHECK(e.diag.message.ends_with("..."));
}

TEST_CASE("describe_reply: a lost reply has status 0 and says so") {
  errors::reply_facts f;
  f.reply_lost = true;
  f.status = 200;
  f.is_conditional_write = true;
  auto r = errors::describe_reply(f, "<Error><Code>Ignored</Code></Error>", {.operation = "PutObject"});
  CHECK(r.what.outcome == kind::unknown_outcome);
  CHECK(r.err.code == errc::unknown_outcome);
  CHECK(r.err.diag.http_status == 0);
  CHECK(r.err.diag.message == "reply lost on a conditional write");
  CHECK_FALSE(r.body.has_value());
}

TEST_CASE("describe_reply: a normal 2xx payload is a success, a 200 <Error> is not") {
  errors::reply_facts f;
  f.status = 200;
  auto ok = errors::describe_reply(f, "<ListBucketResult><Name>b</Name></ListBucketResult>", {});
  CHECK(ok.what.outcome == kind::success);
  CHECK(ok.err.code == errc::ok);
  CHECK(ok.err.diag.message.empty());
  auto big = errors::describe_reply(f, "<R>" + std::string(100000, 'x') + "</R>", {});
  CHECK(big.what.outcome == kind::success);
  auto bad = errors::describe_reply(f, " \r\n<Error><Code>InternalError</Code><Message>m</Message></Error>", {});
  CHECK(bad.what.outcome == kind::transient);
  CHECK(bad.err.code == errc::transient);
  CHECK(bad.err.diag.code == "InternalError");
}

TEST_CASE("describe_reply: the body's code overrides a code the caller guessed") {
  errors::reply_facts f;
  f.status = 409;
  f.code = "Guess";
  auto r = errors::describe_reply(f, "<Error><Code>ConcurrentModification</Code></Error>", {});
  CHECK(r.what.outcome == kind::conflict);
  f.status = 404;
  auto bodiless = errors::describe_reply(f, "", {});
  CHECK(bodiless.what.outcome == kind::not_found);
  CHECK(bodiless.err.diag.code.empty());
}

}  // namespace errors_reply_error_test
