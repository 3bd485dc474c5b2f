// The CLI's pure helpers: redaction of request targets and headers for the
// -v / --debug log, and the one log line per HTTP attempt.
#include "cli.hpp"

#include <floe/http/fields.hpp>

#include <doctest/doctest.h>

#include <cstdio>
#include <string>
#include <unistd.h>

using namespace floe;

TEST_CASE("redact_target hides every signing value in a query, keeps the rest as sent") {
  std::string const presigned =
      "/b/k%20x?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIDEXAMPLE%2F20240101%2Fus-east-1%2Fs3%2Faws4_request"
      "&X-Amz-Date=20240101T000000Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host"
      "&X-Amz-Security-Token=FwoGZXIvYXdzSESSION&X-Amz-Signature=deadbeefcafe";
  auto r = cli::redact_target(presigned);
  CHECK(r ==
        "/b/k%20x?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=REDACTED&X-Amz-Date=20240101T000000Z"
        "&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Security-Token=REDACTED&X-Amz-Signature=REDACTED");
  for (auto secret : {"AKIDEXAMPLE", "FwoGZXIvYXdzSESSION", "deadbeefcafe"}) CHECK(r.find(secret) == std::string::npos);
  // SigV2 and STS query forms; names compared without case.
  CHECK(cli::redact_target("/k?AWSAccessKeyId=AKID&Expires=1&Signature=abc") ==
        "/k?AWSAccessKeyId=REDACTED&Expires=1&Signature=REDACTED");
  CHECK(cli::redact_target("/?Action=AssumeRoleWithWebIdentity&WebIdentityToken=eyJ&x-amz-signature=s") ==
        "/?Action=AssumeRoleWithWebIdentity&WebIdentityToken=REDACTED&x-amz-signature=REDACTED");
  // Nothing to hide: unchanged, including odd shapes.
  CHECK(cli::redact_target("/b?list-type=2&prefix=a%26b&delete") == "/b?list-type=2&prefix=a%26b&delete");
  CHECK(cli::redact_target("/b/k") == "/b/k");
  CHECK(cli::redact_target("/b?") == "/b?");
  CHECK(cli::redact_target("/b?&&x=1") == "/b?&&x=1");
}

TEST_CASE("is_secret_header: credentials, tokens, signatures and keys, in any case") {
  for (auto n : {"Authorization", "authorization", "Proxy-Authorization", "X-Amz-Security-Token", "Cookie", "Set-Cookie",
                 "x-amz-server-side-encryption-customer-key", "X-Amz-Copy-Source-Server-Side-Encryption-Customer-Key",
                 "X-Aws-Ec2-Metadata-Token", "X-My-Secret"})
    CHECK_MESSAGE(cli::is_secret_header(n), n);
  for (auto n : {"Host", "X-Amz-Date", "X-Amz-Content-SHA256", "x-amz-meta-floe-write-id", "If-Match", "Content-Length",
                 "x-amz-request-id"})
    CHECK_MESSAGE(!cli::is_secret_header(n), n);
}

namespace {

// Runs log_exchange with stderr redirected to a temporary file; returns what it wrote.
std::string logged(cli::global_options const& g, http::exchange_view const& v) {
  std::fflush(stderr);
  char tmpl[] = "/tmp/floe-cli-log-XXXXXX";
  int fd = ::mkstemp(tmpl);
  REQUIRE(fd >= 0);
  int saved = ::dup(2);
  ::dup2(fd, 2);
  cli::log_exchange(g, v);
  std::fflush(stderr);
  ::dup2(saved, 2);
  ::close(saved);
  std::string out;
  char buf[4096];
  ::lseek(fd, 0, SEEK_SET);
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) out.append(buf, static_cast<std::size_t>(n));
  ::close(fd);
  ::unlink(tmpl);
  return out;
}

}  // namespace

TEST_CASE("log_exchange: one line per attempt; --debug adds headers with secrets redacted; nothing without -v") {
  http::endpoint ep{false, "127.0.0.1", 9000};
  http::fields req_h, rep_h;
  req_h.set("Host", "127.0.0.1:9000");
  req_h.set("Authorization", "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/x, SignedHeaders=host, Signature=0123abcd");
  req_h.set("X-Amz-Security-Token", "FwoGZXIvYXdzSESSION");
  rep_h.set("x-amz-request-id", "RID42");
  rep_h.set("x-amz-bucket-region", "eu-west-1");
  rep_h.set("Location", "http://other/b/k?X-Amz-Signature=feedface");
  http::exchange_view v;
  v.operation = "GetObject";
  v.method = "GET";
  v.ep = &ep;
  v.target = "/b/k?X-Amz-Signature=feedface&versionId=3";
  v.request_headers = &req_h;
  v.status = 301;
  v.reply_headers = &rep_h;
  v.attempt = 2;
  v.reused_connection = true;
  v.elapsed = std::chrono::milliseconds(12);

  cli::global_options quiet;
  CHECK(logged(quiet, v).empty());

  cli::global_options g;
  g.debug = true;
  auto line = logged(g, v);
  CHECK(line ==
        "floe: debug: [GetObject #2] GET http://127.0.0.1:9000/b/k?X-Amz-Signature=REDACTED&versionId=3 -> 301 "
        "request-id RID42 bucket-region eu-west-1 location http://other/b/k?X-Amz-Signature=REDACTED "
        "(12 ms, reused connection)\n");

  g.debug_headers = true;
  auto all = logged(g, v);
  CHECK(all.find("> Authorization: REDACTED\n") != std::string::npos);
  CHECK(all.find("> X-Amz-Security-Token: REDACTED\n") != std::string::npos);
  CHECK(all.find("< x-amz-request-id: RID42\n") != std::string::npos);
  for (auto secret : {"AKIDEXAMPLE", "0123abcd", "FwoGZXIvYXdzSESSION", "feedface"})
    CHECK_MESSAGE(all.find(secret) == std::string::npos, secret);

  // No reply: the error instead of a status; a resend is marked.
  http::exchange_view lost = v;
  lost.status = 0;
  lost.reply_headers = nullptr;
  lost.ec = make_error_code(boost::system::errc::connection_reset);
  lost.resend = true;
  lost.attempt = 1;
  g.debug_headers = false;
  auto l2 = logged(g, lost);
  CHECK(l2.find("[GetObject #1 resend] GET ") != std::string::npos);
  CHECK(l2.find("-> no reply: ") != std::string::npos);
}
