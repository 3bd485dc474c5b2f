// The verbatim replies in tests/data/vectors/errors/ and our own bodies in
// tests/data/errors/, through describe_reply.
#include "test_data.hpp"

#include <floe/errors/reply_error.hpp>

#include <doctest/doctest.h>

#include <cctype>
#include <chrono>
#include <filesystem>
#include <map>
#include <string>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace errors_vectors_test {

namespace errors = floe::errors;
using errors::kind;
using floe::errc;
using namespace std::chrono_literals;

namespace {

struct http_reply {
  unsigned status = 0;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;

  std::string header(std::string const& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
  }
};

// Splits a captured reply: status line and headers end with CRLF, a blank
// line, then the body.
http_reply load_vector(std::string const& file) {
  auto raw = floe_test::slurp(floe_test::reply_vector_dir() + file);
  http_reply r;
  auto head_end = raw.find("\r\n\r\n");
  REQUIRE_MESSAGE(head_end != std::string::npos, file, ": no blank line after the head");
  r.body = raw.substr(head_end + 4);
  auto head = std::string_view(raw).substr(0, head_end);
  auto eol = head.find("\r\n");
  auto status_line = head.substr(0, eol);
  REQUIRE(status_line.starts_with("HTTP/1.1 "));
  r.status = static_cast<unsigned>(std::stoul(std::string(status_line.substr(9, 3))));
  while (eol != std::string_view::npos) {
    head.remove_prefix(eol + 2);
    eol = head.find("\r\n");
    auto line = head.substr(0, eol);
    auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string name(line.substr(0, colon));
    for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    auto value = line.substr(colon + 1);
    while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    r.headers[name] = std::string(value);
  }
  return r;
}

errors::reply_report run(http_reply const& r, errors::reply_facts f, std::string_view operation = "PutObject",
                         std::string_view resource = "racebucket/k") {
  f.status = r.status;
  auto rid = r.header("x-amz-request-id");
  auto hid = r.header("x-amz-id-2");
  return errors::describe_reply(f, r.body, {.request_id = rid, .host_id = hid, .operation = operation,
                                            .resource = resource, .attempt = 1});
}

errors::reply_facts put_if_match() {
  errors::reply_facts f;
  f.method = "PUT";
  f.is_conditional_write = true;
  f.if_match = true;
  return f;
}

errors::reply_facts put_if_none_match() {
  errors::reply_facts f;
  f.method = "PUT";
  f.is_conditional_write = true;
  return f;
}

errors::reply_facts plain(std::string_view method) {
  errors::reply_facts f;
  f.method = method;
  return f;
}

}  // namespace

TEST_CASE("the reply vector directory holds every reply these tests name") {
  std::size_t n = 0;
  for (auto const& e : std::filesystem::directory_iterator(floe_test::reply_vector_dir())) {
    if (e.path().extension() == ".http") ++n;
  }
  CHECK(n >= 7);
}

TEST_CASE("AWS 409 ConditionalRequestConflict -> conflict, diagnostics filled") {
  auto v = load_vector("aws-409-conditionalrequestconflict.http");
  auto r = run(v, put_if_none_match());
  CHECK(r.what.outcome == kind::conflict);
  CHECK(r.err.code == errc::conflict);
  CHECK(r.err.diag.http_status == 409);
  CHECK(r.err.diag.code == "ConditionalRequestConflict");
  CHECK(r.err.diag.message.starts_with("A conflicting operation occurred."));
  CHECK(r.err.diag.request_id == "7QRBZ0NXA5QC3WXB");
  CHECK(r.err.diag.host_id == "aG9zdGlkZXhhbXBsZQ==");
  CHECK(r.err.diag.operation == "PutObject");
  CHECK(r.err.diag.resource == "racebucket/k");
  CHECK(r.err.diag.attempt == 1);
  REQUIRE(r.body.has_value());
  CHECK(r.body.value().code == "ConditionalRequestConflict");
}

TEST_CASE("Ceph 409 ConcurrentModification -> conflict, with or without a condition") {
  auto v = load_vector("ceph-409-concurrentmodification.http");
  auto r = run(v, put_if_match());
  CHECK(r.what.outcome == kind::conflict);
  REQUIRE(r.body.has_value());
  CHECK(r.body.value().bucket_name == "racebucket");
  CHECK(r.err.diag.request_id == "tx00000a1b2c3d4e5f60718-006b0c6ad3-1033-default");
  CHECK(r.err.diag.host_id == "1033-default-default");  // from the body: no x-amz-id-2 header
  CHECK(run(v, plain("PUT")).what.outcome == kind::conflict);
}

TEST_CASE("Ceph Pacific 404 NoSuchKey: If-Match write -> precondition_failed; GET -> not_found") {
  auto v = load_vector("ceph-pacific-404-nosuchkey-race.http");
  auto r = run(v, put_if_match());
  CHECK(r.what.outcome == kind::precondition_failed);
  CHECK(r.err.code == errc::precondition_failed);
  CHECK(r.err.diag.code == "NoSuchKey");
  CHECK(run(v, plain("GET"), "GetObject").what.outcome == kind::not_found);
}

TEST_CASE("Ceph Pacific 412 PreconditionFailed -> precondition_failed") {
  auto v = load_vector("ceph-pacific-412-precondition.http");
  CHECK(run(v, put_if_match()).what.outcome == kind::precondition_failed);
  CHECK(run(v, plain("PUT")).what.outcome == kind::precondition_failed);
}

TEST_CASE("Ceph Pacific 500 UnknownError: conditional write -> unknown_outcome; plain GET -> transient") {
  auto v = load_vector("ceph-pacific-500-unknownerror-race.http");
  auto r = run(v, put_if_match());
  CHECK(r.what.outcome == kind::unknown_outcome);
  CHECK(r.err.code == errc::unknown_outcome);
  CHECK(r.err.diag.code == "UnknownError");
  CHECK(run(v, plain("GET"), "GetObject").what.outcome == kind::transient);
}

TEST_CASE("moto 412 on If-None-Match: precondition_failed, Condition and body request id") {
  auto v = load_vector("moto-412-precondition.http");
  auto r = run(v, put_if_none_match());
  CHECK(r.what.outcome == kind::precondition_failed);
  REQUIRE(r.body.has_value());
  CHECK(r.body.value().condition == "If-None-Match");
  CHECK(r.err.diag.message == "At least one of the pre-conditions you specified did not hold");
  // moto's header is x-amzn-requestid (not x-amz-request-id): the body's id fills in
  CHECK(r.err.diag.request_id == "NaRoaIDGmCoQvvU88JDSkKd8qswXTcYoANiaGcSz9i89o7zv8NA9");
}

TEST_CASE("bodiless HEAD 403: stale when refreshable, denied otherwise, clock_skew when the Date is far off") {
  auto v = load_vector("head-403-nobody.http");
  CHECK(v.body.empty());
  CHECK(v.header("date") == "Tue, 28 Jul 2026 13:40:46 GMT");
  auto f = plain("HEAD");
  auto denied = run(v, f, "HeadObject");
  CHECK(denied.what.outcome == kind::denied);
  CHECK(denied.err.diag.code.empty());
  CHECK(denied.err.diag.request_id == "9B1D0C2E3F4A5B6C");
  CHECK_FALSE(denied.body.has_value());
  f.credentials_refreshable = true;
  CHECK(run(v, f, "HeadObject").what.outcome == kind::stale_credentials);
  // The local clock read 13:52:00 when this reply (Date 13:40:46) came in.
  f.clock_skew = -(11min + 14s);
  CHECK(run(v, f, "HeadObject").what.outcome == kind::clock_skew);
  f.clock_skew = -2s;
  CHECK(run(v, f, "HeadObject").what.outcome == kind::stale_credentials);
}

TEST_CASE("our bodies: each with the kind it must classify as") {
  struct row {
    char const* file;
    unsigned status;
    errors::reply_facts facts;
    kind want;
    char const* code;
  };
  auto refreshable = plain("GET");
  refreshable.credentials_refreshable = true;
  auto sts_fetch = plain("POST");
  sts_fetch.is_credential_fetch = true;
  for (auto const& c : {
           row{"sts-expired-token.xml", 400, plain("POST"), kind::stale_credentials, "ExpiredToken"},
           row{"sts-expired-token.xml", 400, sts_fetch, kind::client_error, "ExpiredToken"},
           row{"sqs-request-throttled.xml", 403, plain("POST"), kind::throttled, "RequestThrottled"},
           row{"minio-invalid-access-key-id.xml", 403, plain("GET"), kind::stale_credentials, "InvalidAccessKeyId"},
           row{"minio-slowdownread.xml", 503, plain("GET"), kind::throttled, "SlowDownRead"},
           row{"minio-slowdownwrite.xml", 503, plain("PUT"), kind::throttled, "SlowDownWrite"},
           row{"s3-not-implemented.xml", 501, put_if_match(), kind::unsupported, "NotImplemented"},
           row{"s3-no-such-bucket.xml", 404, put_if_match(), kind::not_found, "NoSuchBucket"},
           row{"s3-request-time-too-skewed.xml", 403, refreshable, kind::clock_skew, "RequestTimeTooSkewed"},
           row{"s3-signature-does-not-match.xml", 403, refreshable, kind::denied, "SignatureDoesNotMatch"},
           row{"s3-prefixed-namespace.xml", 403, refreshable, kind::stale_credentials, "AccessDenied"},
           row{"s3-prefixed-namespace.xml", 403, plain("GET"), kind::denied, "AccessDenied"},
           row{"ec2-style-response.xml", 503, plain("POST"), kind::throttled, "RequestLimitExceeded"},
           row{"complete-multipart-200-internal-error.xml", 200, plain("POST"), kind::transient, "InternalError"},
           row{"complete-multipart-200-internal-error.xml", 200, put_if_none_match(), kind::unknown_outcome,
               "InternalError"},
       }) {
    std::string const file = c.file;
    unsigned const status = c.status;
    auto const want = c.want;
    std::string const code = c.code;
    CAPTURE(file);
    CAPTURE(status);
    auto f = c.facts;
    f.status = status;
    auto r = errors::describe_reply(f, floe_test::our_data(file), {.operation = "Op"});
    CHECK(r.what.outcome == want);
    CHECK(r.err.diag.code == code);
    CHECK(r.err.diag.http_status == status);
  }
}

TEST_CASE("unreadable bodies: classified from the status, the message says why") {
  struct row {
    char const* file;
    unsigned status;
    kind want;
    char const* why;
  };
  for (auto const& c : {
           row{"html-502.html", 502, kind::transient, "unreadable error body: XML parse error"},
           row{"html-doctype-503.html", 503, kind::transient, "DOCTYPE refused"},
           row{"xxe-file.xml", 403, kind::denied, "DOCTYPE refused"},
           row{"billion-laughs.xml", 500, kind::transient, "DOCTYPE refused"},
           row{"truncated.xml", 503, kind::transient, "unreadable error body"},
       }) {
    std::string const file = c.file;
    auto const want = c.want;
    std::string const why = c.why;
    CAPTURE(file);
    errors::reply_facts f;
    f.status = c.status;
    auto r = errors::describe_reply(f, floe_test::our_data(file), {.request_id = "hdr-id"});
    CHECK(r.what.outcome == want);
    CHECK(r.err.diag.code.empty());
    CHECK(r.err.diag.request_id == "hdr-id");
    CHECK(r.err.diag.message.find(why) != std::string::npos);
    CHECK(r.err.diag.message.find("root:") == std::string::npos);
    CHECK_FALSE(r.body.has_value());
  }
}

}  // namespace errors_vectors_test
