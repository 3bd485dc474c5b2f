// Every row of the classification table in docs/design.md (Errors), and each case issue 2
// names, as (facts -> kind) cases.
#include <floe/errors/classify.hpp>

#include <doctest/doctest.h>

#include <chrono>
#include <string>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace errors_classify_test {

namespace errors = floe::errors;
using errors::kind;
using namespace std::chrono_literals;

namespace {

errors::reply_facts reply(unsigned status, std::string_view code = {}, std::string_view method = "GET") {
  errors::reply_facts f;
  f.status = status;
  f.code = code;
  f.method = method;
  return f;
}

errors::reply_facts cond_put(unsigned status, std::string_view code = {}, bool if_match = false) {
  auto f = reply(status, code, "PUT");
  f.is_conditional_write = true;
  f.if_match = if_match;
  return f;
}

kind k(errors::reply_facts const& f) { return errors::classify(f).outcome; }

}  // namespace

TEST_CASE("success: 2xx, and 304 on a conditional read") {
  CHECK(k(reply(200)) == kind::success);
  CHECK(k(reply(204, {}, "DELETE")) == kind::success);
  CHECK(k(cond_put(200)) == kind::success);
  auto r = reply(304);
  r.is_conditional_read = true;
  CHECK(k(r) == kind::success);
  CHECK(k(reply(304)) == kind::client_error);
}

TEST_CASE("precondition_failed: 412 from every store; 404 NoSuchKey on an If-Match write") {
  CHECK(k(cond_put(412, "PreconditionFailed")) == kind::precondition_failed);
  CHECK(k(cond_put(412)) == kind::precondition_failed);  // bodiless
  CHECK(k(reply(412, "PermanentRedirect")) == kind::precondition_failed);  // the status settles it
  CHECK(k(reply(200, "PreconditionFailed")) == kind::precondition_failed);
  auto get = reply(412, "PreconditionFailed");
  get.is_conditional_read = true;
  CHECK(k(get) == kind::precondition_failed);
  CHECK(k(cond_put(404, "NoSuchKey", true)) == kind::precondition_failed);
  auto del = cond_put(404, "NoSuchKey", true);
  del.method = "DELETE";
  CHECK(k(del) == kind::precondition_failed);
  // if_match alone implies a conditional write
  auto implied = reply(404, "NoSuchKey", "PUT");
  implied.if_match = true;
  CHECK(k(implied) == kind::precondition_failed);
}

TEST_CASE("not_found: NoSuchKey, NoSuchBucket (also on an If-Match write), bodiless HEAD 404") {
  CHECK(k(reply(404, "NoSuchKey")) == kind::not_found);
  CHECK(k(reply(404, "NoSuchBucket")) == kind::not_found);
  CHECK(k(cond_put(404, "NoSuchBucket", true)) == kind::not_found);
  CHECK(k(cond_put(404, "NoSuchKey", false)) == kind::not_found);  // If-None-Match only
  CHECK(k(reply(404, {}, "HEAD")) == kind::not_found);
  CHECK(k(reply(404, "NoSuchUpload", "POST")) == kind::not_found);
  CHECK(k(reply(400, "AWS.SimpleQueueService.NonExistentQueue", "POST")) == kind::not_found);
}

TEST_CASE("conflict: 409 ConditionalRequestConflict, 409 ConcurrentModification, any 409 on a conditional request") {
  CHECK(k(cond_put(409, "ConditionalRequestConflict")) == kind::conflict);
  CHECK(k(cond_put(409, "ConcurrentModification", true)) == kind::conflict);
  CHECK(k(reply(409, "ConcurrentModification", "PUT")) == kind::conflict);
  CHECK(k(cond_put(409, "OperationAborted")) == kind::conflict);
  CHECK(k(cond_put(409)) == kind::conflict);
  auto read = reply(409, "SomethingElse");
  read.is_conditional_read = true;
  CHECK(k(read) == kind::conflict);
  // 409 without a condition is the request's own problem
  CHECK(k(reply(409, "BucketNotEmpty", "DELETE")) == kind::client_error);
  CHECK(k(reply(409, "BucketAlreadyOwnedByYou", "PUT")) == kind::client_error);
}

TEST_CASE("unknown_outcome: a conditional write whose reply was lost, cut off, or a 5xx") {
  auto lost = cond_put(0);
  lost.reply_lost = true;
  CHECK(k(lost) == kind::unknown_outcome);
  auto cut = cond_put(200);  // the status arrived, then the connection died
  cut.reply_lost = true;
  CHECK(k(cut) == kind::unknown_outcome);
  CHECK(k(cond_put(500, "UnknownError", true)) == kind::unknown_outcome);  // Ceph 16.2 race
  CHECK(k(cond_put(500, "InternalError")) == kind::unknown_outcome);
  CHECK(k(cond_put(502)) == kind::unknown_outcome);
  CHECK(k(cond_put(503, "SlowDown")) == kind::unknown_outcome);
  CHECK(k(cond_put(504)) == kind::unknown_outcome);
  CHECK(k(cond_put(200, "InternalError")) == kind::unknown_outcome);  // 200 with <Error>
  // not for a 4xx: the store refused before writing
  CHECK(k(cond_put(400, "InvalidArgument")) == kind::client_error);
  CHECK(k(cond_put(429)) == kind::throttled);
}

TEST_CASE("unsupported: 501 NotImplemented, also on a conditional write") {
  CHECK(k(cond_put(501, "NotImplemented", true)) == kind::unsupported);
  CHECK(k(reply(501)) == kind::unsupported);
  CHECK(k(reply(400, "NotImplemented")) == kind::unsupported);
  CHECK(k(reply(501, "SlowDown")) == kind::unsupported);
}

TEST_CASE("stale_credentials: the token/key codes, and refreshable AccessDenied or bodiless 403") {
  for (auto code : {"ExpiredToken", "InvalidToken", "TokenRefreshRequired", "InvalidAccessKeyId",
                    "InvalidClientTokenId", "ExpiredTokenException"}) {
    CAPTURE(code);
    CHECK(k(reply(403, code)) == kind::stale_credentials);
    CHECK(k(reply(400, code)) == kind::stale_credentials);
  }
  auto denied = reply(403, "AccessDenied");
  CHECK(k(denied) == kind::denied);
  denied.credentials_refreshable = true;
  CHECK(k(denied) == kind::stale_credentials);
  auto head = reply(403, {}, "HEAD");
  CHECK(k(head) == kind::denied);
  head.credentials_refreshable = true;
  CHECK(k(head) == kind::stale_credentials);
  // other 403s stay denied even with refreshable credentials
  auto other = reply(403, "AllAccessDisabled");
  other.credentials_refreshable = true;
  CHECK(k(other) == kind::denied);
}

TEST_CASE("a credential fetch is never stale_credentials") {
  auto sts = reply(400, "ExpiredTokenException", "POST");
  sts.is_credential_fetch = true;
  sts.credentials_refreshable = true;
  CHECK(k(sts) == kind::client_error);
  auto sts403 = reply(403, "InvalidClientTokenId", "POST");
  sts403.is_credential_fetch = true;
  CHECK(k(sts403) == kind::denied);
  auto imds = reply(403, {}, "GET");
  imds.is_credential_fetch = true;
  imds.credentials_refreshable = true;
  CHECK(k(imds) == kind::denied);
  auto throttled = reply(400, "Throttling", "POST");
  throttled.is_credential_fetch = true;
  CHECK(k(throttled) == kind::throttled);
  auto down = reply(503, {}, "POST");
  down.is_credential_fetch = true;
  CHECK(k(down) == kind::transient);
}

TEST_CASE("clock_skew: skew codes; a signature or bodiless 403 refusal with the server Date far off") {
  CHECK(k(reply(403, "RequestTimeTooSkewed")) == kind::clock_skew);
  CHECK(k(reply(403, "RequestExpired")) == kind::clock_skew);
  CHECK(k(reply(400, "RequestExpired", "POST")) == kind::clock_skew);
  auto sig = reply(400, "InvalidSignatureException", "POST");
  CHECK(k(sig) == kind::client_error);
  sig.clock_skew = 20min;
  CHECK(k(sig) == kind::clock_skew);
  auto sdnm = reply(403, "SignatureDoesNotMatch");
  CHECK(k(sdnm) == kind::denied);
  sdnm.clock_skew = -16min;
  CHECK(k(sdnm) == kind::clock_skew);
  auto head = reply(403, {}, "HEAD");
  head.credentials_refreshable = true;
  head.clock_skew = 10min;
  CHECK(k(head) == kind::clock_skew);
  head.clock_skew = -10min;
  CHECK(k(head) == kind::clock_skew);
  head.clock_skew = 4min;  // within tolerance: stale credentials after all
  CHECK(k(head) == kind::stale_credentials);
  head.clock_skew = 10min;
  head.skew_tolerance = 15min;
  CHECK(k(head) == kind::stale_credentials);
  auto plain = reply(403, {}, "HEAD");
  plain.clock_skew = 1h;
  CHECK(k(plain) == kind::clock_skew);
}

TEST_CASE("throttled: SlowDown, MinIO SlowDownRead/SlowDownWrite, 429, 499, Throttling*, RequestLimitExceeded, TooManyRequests*") {
  CHECK(k(reply(503, "SlowDown")) == kind::throttled);
  CHECK(k(reply(503, "SlowDownRead")) == kind::throttled);
  CHECK(k(reply(503, "SlowDownWrite", "PUT")) == kind::throttled);
  CHECK(k(reply(429)) == kind::throttled);
  CHECK(k(reply(499)) == kind::throttled);
  CHECK(k(reply(400, "Throttling", "POST")) == kind::throttled);
  CHECK(k(reply(400, "ThrottlingException", "POST")) == kind::throttled);
  CHECK(k(reply(503, "RequestLimitExceeded")) == kind::throttled);
  CHECK(k(reply(429, "TooManyRequestsException")) == kind::throttled);
  CHECK(k(reply(403, "RequestThrottled", "POST")) == kind::throttled);
  CHECK(k(reply(200, "SlowDown")) == kind::throttled);
}

TEST_CASE("transient: 500, 502, 503, 504, RequestTimeout, InternalError, connection lost before a reply") {
  for (unsigned s : {500u, 502u, 503u, 504u}) {
    CAPTURE(s);
    CHECK(k(reply(s)) == kind::transient);
  }
  CHECK(k(reply(400, "RequestTimeout", "PUT")) == kind::transient);
  CHECK(k(reply(500, "InternalError")) == kind::transient);
  CHECK(k(reply(500, "UnknownError")) == kind::transient);
  CHECK(k(reply(503, "ServiceUnavailable")) == kind::transient);
  CHECK(k(reply(200, "InternalError", "POST")) == kind::transient);  // CompleteMultipartUpload 200 + <Error>
  auto lost = reply(0);
  lost.reply_lost = true;
  CHECK(k(lost) == kind::transient);
  CHECK(k(reply(0)) == kind::transient);  // no status: nothing arrived
}

TEST_CASE("denied: any other 403") {
  CHECK(k(reply(403, "AccessDenied")) == kind::denied);
  CHECK(k(reply(403, "AllAccessDisabled")) == kind::denied);
  CHECK(k(reply(403, "AccountProblem")) == kind::denied);
  CHECK(k(reply(401)) == kind::denied);
}

TEST_CASE("redirect: 301/307 and region redirects") {
  CHECK(k(reply(301, "PermanentRedirect")) == kind::redirect);
  CHECK(k(reply(301, {}, "HEAD")) == kind::redirect);
  CHECK(k(reply(307, "TemporaryRedirect")) == kind::redirect);
  auto head = reply(400, {}, "HEAD");
  CHECK(k(head) == kind::client_error);
  head.has_bucket_region = true;
  CHECK(k(head) == kind::redirect);
  auto ahm = reply(400, "AuthorizationHeaderMalformed");
  CHECK(k(ahm) == kind::client_error);
  ahm.has_bucket_region = true;
  CHECK(k(ahm) == kind::redirect);
}

TEST_CASE("client_error: any other 4xx, and strange statuses") {
  CHECK(k(reply(400, "InvalidArgument")) == kind::client_error);
  CHECK(k(reply(400, "MalformedXML", "POST")) == kind::client_error);
  CHECK(k(reply(405, "MethodNotAllowed")) == kind::client_error);
  CHECK(k(reply(416, "InvalidRange")) == kind::client_error);
  CHECK(k(reply(999)) == kind::client_error);
  CHECK(k(reply(100)) == kind::transient);
}

TEST_CASE("every classification names its rule") {
  for (unsigned s : {0u, 200u, 301u, 304u, 400u, 403u, 404u, 409u, 412u, 429u, 500u, 501u, 503u}) {
    for (auto code : {"", "NoSuchKey", "SlowDown", "AccessDenied", "Foo"}) {
      for (int flags = 0; flags < 16; ++flags) {
        auto f = reply(s, code);
        f.is_conditional_write = (flags & 1) != 0;
        f.if_match = (flags & 2) != 0;
        f.credentials_refreshable = (flags & 4) != 0;
        f.is_credential_fetch = (flags & 8) != 0;
        auto c = errors::classify(f);
        CAPTURE(s);
        CAPTURE(code);
        CHECK_FALSE(c.reason.empty());
        CHECK(floe::errors::to_string(c.outcome) != "?");
      }
    }
  }
}

TEST_CASE("code families") {
  CHECK(errors::is_throttling_code("ThrottlingSomethingNew"));
  CHECK(errors::is_throttling_code("TooManyRequestsException"));
  CHECK_FALSE(errors::is_throttling_code("Throttle"));
  CHECK(errors::is_stale_credentials_code("InvalidAccessKeyId"));
  CHECK_FALSE(errors::is_stale_credentials_code("AccessDenied"));
  CHECK(errors::is_clock_skew_code("RequestTimeTooSkewed"));
  CHECK(errors::is_transient_code("RequestTimeout"));
  CHECK(errors::is_not_found_code("NoSuchBucket"));
}

}  // namespace errors_classify_test
