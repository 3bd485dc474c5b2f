// Self-healing credentials against moto (STS, and S3 with IAM auth off)
// through a private test proxy that is the auth gate: web identity, the
// refreshing cache, recovery from 403 after revocation, a real denial,
// expiry driven by a test clock (no sleeps), token file re-reads, and STS
// failing in the advisory window.

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wnull-dereference"
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

#include "cred_world.hpp"

#include <floe/providers/web_identity.hpp>
#include <floe/providers/default_session.hpp>
#include <floe/s3/client.hpp>
#include <floe/sts/client.hpp>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <mutex>
#include <thread>

// Its own namespace: it shares a build unit with other test files
// (tests/integration/meson.build).
namespace credentials_refreshing_it {

namespace asio = boost::asio;
using namespace std::chrono_literals;
using floe::test::servers;
using floe::test::clocked_source;
using floe::test::sys_clock;
using floe::test::world;
using floe::test::write_file;

namespace {

constexpr char const* hold_sts = R"({"match": {"service": "sts"}, "action": {"type": "hold"}})";

// Per request (each has its own object key, so its own target): the status
// of every attempt, from the S3 client's per-attempt observer.
struct attempt_log {
  std::mutex mu;
  std::map<std::string, std::vector<unsigned>> statuses;  // target -> status per attempt
  unsigned beyond_first = 0;                              // attempts numbered > 1 (HTTP-layer retries)
  void install(floe::s3::client_config& c) {
    c.http.observer = [this](floe::http::exchange_view const& v) {
      std::lock_guard lk(mu);
      statuses[std::string(v.target)].push_back(v.status);
      if (v.attempt > 1) ++beyond_first;
    };
  }
  unsigned count(std::string const& target, unsigned status) {
    std::lock_guard lk(mu);
    unsigned n = 0;
    for (auto s : statuses[target]) n += s == status ? 1u : 0u;
    return n;
  }
};

// An STS error reply as AWS sends it (query protocol; codes, statuses and
// messages from the STS API reference, AssumeRoleWithWebIdentity "Errors").
std::string sts_error_rule(std::string const& match, unsigned status, std::string const& code,
                           std::string const& message, std::string const& trigger = R"({"every": true})") {
  std::string const body = "<ErrorResponse xmlns=\\\"https://sts.amazonaws.com/doc/2011-06-15/\\\">\\n  <Error>\\n"
                           "    <Type>Sender</Type>\\n    <Code>" + code + "</Code>\\n    <Message>" + message +
                           "</Message>\\n  </Error>\\n  <RequestId>c6104cbe-af31-11e0-8154-cbc7ccf896c7</RequestId>\\n"
                           "</ErrorResponse>\\n";
  return R"({"match": )" + match + R"(, "trigger": )" + trigger + R"(, "action": {"type": "reply", "status": )" +
         std::to_string(status) +
         R"(, "headers": {"Content-Type": "text/xml", "x-amzn-RequestId": "c6104cbe-af31-11e0-8154-cbc7ccf896c7"}, "body": ")" +
         body + R"("}})";
}

constexpr char const* idp_message =
    "The request could not be fulfilled because the identity provider (IDP) that was asked to verify the incoming "
    "identity token could not be reached. Try the request again.";
constexpr char const* invalid_token_message =
    "The web identity token that was passed could not be validated by Amazon Web Services. Get a new identity token "
    "from the identity provider and then retry the request.";
constexpr char const* expired_token_message =
    "The web identity token that was passed is expired or is not valid. Get a new identity token from the identity "
    "provider and then retry the request.";

std::string sts_token_match(std::string const& token) {
  return R"({"service": "sts", "body": "WebIdentityToken=)" + token + R"x((&|$)"})x";
}

}  // namespace

TEST_CASE("story: 32 requests in flight, keys revoked after N forwarded, one extra STS call heals all of them") {
  attempt_log log;
  world w({}, {}, [&log](floe::s3::client_config& c) { log.install(c); });
  std::string const bucket = "cred-story";
  w.make_bucket(bucket, "k");
  w.put_objects(bucket, 32);  // one object per request: the observer tells the requests apart
  CHECK(w.sts_calls() == 1);
  auto const first_set = w.creds();
  REQUIRE(first_set.has_value());
  auto const quota_before = w.s3->http().quota().available();
  {
    std::lock_guard lk(log.mu);
    CHECK(log.statuses.size() == 34);  // the bucket, "k" and k0..k31 created
    log.statuses.clear();
  }

  int const hold = w.srv.control.add_rule(hold_sts);
  // The proxy revokes every key issued so far when it forwards the 8th
  // request of the 32: the 8 succeed, every later one meets a revoked key.
  constexpr int forwarded_before_revocation = 8;
  w.srv.control.call("POST", "/revoke",
                     R"({"access_keys": "all-issued", "after_forwarded": 8, "match": {"service": "s3", "path": "^/cred-story/k"}})");
  auto const waits_before = w.provider->stats().waits;
  std::vector<std::future<floe::result<floe::s3::get_result>>> pending;
  for (int i = 0; i < 32; ++i) {
    // Half HEAD (a bare 403), half GET (403 AccessDenied with a body).
    pending.push_back(asio::co_spawn(
        w.io,
        [&w, &bucket, i]() -> asio::awaitable<floe::result<floe::s3::get_result>> {
          std::string const key = "k" + std::to_string(i);
          if (i % 2 == 0) co_return co_await w.s3->async_head_object(bucket, key, asio::use_awaitable);
          co_return co_await w.s3->async_get_object(bucket, key, asio::use_awaitable);
        },
        asio::use_future));
  }
  // Requests sent with the revoked set get their 403 and park behind the
  // one forced fetch; later ones park without being sent. The STS reply is
  // held until all 32 - 8 are parked: every 403 has come back by then.
  w.await_stat("revoked_rejections", 1);
  w.await_held(hold, 1);
  w.await_waits(waits_before, 32 - forwarded_before_revocation);
  CHECK(w.srv.control.call("GET", "/revoke").find("\"armed\": []") != std::string::npos);
  w.srv.control.delete_rule(hold);  // releases it
  for (auto& f : pending) {
    auto r = f.get();
    CHECK_MESSAGE(r.has_value(), (r ? std::string() : r.error().what()));  // no error reached the caller
  }
  CHECK(w.sts_calls() == 2);  // exactly one extra STS call
  // Each request saw at most one 403, and the 403s seen are the proxy's rejections.
  unsigned total_403 = 0;
  for (int i = 0; i < 32; ++i) {
    auto const target = "/" + bucket + "/k" + std::to_string(i);
    auto const n = log.count(target, 403);
    CHECK_MESSAGE(n <= 1, target << " saw " << n << " 403s");
    CHECK_MESSAGE(log.count(target, 200) == 1, target);
    total_403 += n;
  }
  CHECK(total_403 == w.srv.control.stat("revoked_rejections"));
  CHECK(total_403 >= 1);
  auto st = w.provider->stats();
  CHECK(st.forced == 1);
  CHECK(st.invalidations == 1);
  CHECK(st.generation == 2);
  CHECK(st.failures == 0);
  CHECK(st.forced_backoff_level == 0);
  CHECK_FALSE(st.forced_backoff_until);
  CHECK(st.cures == 1);  // the healed requests reported the cure (client -> provider confirm)
  CHECK_FALSE(st.retry_after);
  // No back-off timer on the auth path: no attempt beyond the first of any
  // request (the auth retry is outside the attempt count), nothing charged
  // to the S3 quota.
  CHECK(log.beyond_first == 0);
  CHECK(w.s3->http().quota().available() == quota_before);
  // The counters name the source, the generation and the expiry in use.
  auto const now_set = w.creds();
  REQUIRE(now_set.has_value());
  CHECK(st.source == w.source->describe());
  CHECK(st.source.find("web identity (role arn:aws:iam::123456789012:role/floe-test") == 0);
  CHECK(now_set->generation == st.generation);
  REQUIRE(st.expiry.has_value());
  REQUIRE(now_set->expiry.has_value());
  CHECK(*st.expiry == floe::refresh::time_point(*now_set->expiry));
  CHECK(now_set->access_key_id != first_set->access_key_id);
}

TEST_CASE("a stale in-flight refresh: revocation lands while an advisory STS call is held") {
  world w;
  std::string const bucket = "cred-stale-inflight";
  w.make_bucket(bucket, "k");
  REQUIRE(w.sts_calls() == 1);
  int const hold = w.srv.control.add_rule(hold_sts);
  w.clock.advance(50min);  // 1 h sets: advisory window from 45 min
  auto first = w.head(bucket, "k");  // served from cache, starts the background fetch
  CHECK(first.has_value());
  w.await_held(hold, 1);
  w.srv.control.call("POST", "/revoke", R"({"access_keys": "all-issued"})");
  auto const waits_before = w.provider->stats().waits;
  std::vector<std::future<floe::result<floe::s3::get_result>>> pending;
  for (int i = 0; i < 8; ++i) {
    pending.push_back(asio::co_spawn(
        w.io,
        [&w, &bucket]() -> asio::awaitable<floe::result<floe::s3::get_result>> {
          std::string const key = "k";
          co_return co_await w.s3->async_head_object(bucket, key, asio::use_awaitable);
        },
        asio::use_future));
  }
  w.await_stat("revoked_rejections", 1);
  w.await_waits(waits_before, 8);  // all eight parked behind a fetch after the held one
  w.srv.control.delete_rule(hold);  // the advisory reply lands; it started before the revocation
  for (auto& f : pending) {
    auto r = f.get();
    CHECK_MESSAGE(r.has_value(), (r ? std::string() : r.error().what()));
  }
  CHECK(w.sts_calls() == 3);  // initial, advisory, and one more
  auto st = w.provider->stats();
  CHECK(st.discarded == 1);
  CHECK(st.forced == 1);
  CHECK(st.scheduled == 1);
  CHECK(w.srv.control.stat("revoked_rejections") <= 8);  // at most one 403 each
}

TEST_CASE("a real denial: a clear AccessDenied, and forced refreshes back off") {
  floe::refresh::params policy;
  policy.forced = {10'000ms, 80'000ms};
  world w(policy);
  std::string const bucket = "cred-denial";
  w.make_bucket(bucket, "ok");
  int const deny = w.srv.control.add_rule(
      R"({"match": {"service": "s3", "path": "/cred-denial/secret"}, "action": {"type": "reply", "status": 403,
          "headers": {"Content-Type": "application/xml"},
          "body": "<Error><Code>AccessDenied</Code><Message>Access Denied</Message><RequestId>r1</RequestId></Error>"}})");
  auto d1 = w.get(bucket, "secret");
  REQUIRE_FALSE(d1.has_value());
  CHECK(d1.error().diag.code == "AccessDenied");
  CHECK(d1.error().diag.http_status == 403);
  CHECK(d1.error().diag.operation == "GetObject");
  CHECK(w.sts_calls() == 2);  // one forced refresh: it did not help
  // The forced set is rejected too: unproductive; the next forced refresh waits.
  auto d2 = w.get(bucket, "secret");
  REQUIRE_FALSE(d2.has_value());
  CHECK(d2.error().diag.code == "AccessDenied");
  CHECK(w.sts_calls() == 2);
  // While that back-off is in force a failing request fails at once (one
  // 403, no resend with the same keys), naming the operation and the source.
  auto const fired_before = w.srv.control.rule_counter(deny, "fired");
  auto d3 = w.get(bucket, "secret");
  REQUIRE_FALSE(d3.has_value());
  CHECK(w.srv.control.rule_counter(deny, "fired") == fired_before + 1);
  CHECK(d3.error().diag.operation == "GetObject");
  CHECK(d3.error().diag.code == "AccessDenied");
  CHECK_MESSAGE(d3.error().diag.message.find(w.provider->describe()) != std::string::npos, d3.error().what());
  CHECK_MESSAGE(d3.error().diag.message.find("backs off") != std::string::npos, d3.error().what());
  CHECK(w.sts_calls() == 2);
  auto st = w.provider->stats();
  CHECK(st.unproductive == 1);
  CHECK(st.forced_backoff_level == 1);
  CHECK(st.declined >= 1);
  REQUIRE(w.provider->forced_backoff_until().has_value());
  CHECK(w.get(bucket, "ok").has_value());  // other paths keep working with the same set
  // After the back-off (10 s with the jitter draw at 1.0): one more try, then 20 s.
  w.clock.advance(11s);
  CHECK_FALSE(w.get(bucket, "secret").has_value());
  CHECK(w.sts_calls() == 3);
  CHECK_FALSE(w.get(bucket, "secret").has_value());
  CHECK(w.sts_calls() == 3);
  CHECK(w.provider->stats().forced_backoff_level == 2);
  w.clock.advance(15s);  // less than 20 s: still backing off
  CHECK_FALSE(w.get(bucket, "secret").has_value());
  CHECK(w.sts_calls() == 3);
  w.clock.advance(6s);
  CHECK_FALSE(w.get(bucket, "secret").has_value());
  CHECK(w.sts_calls() == 4);
  CHECK(w.srv.control.rule_counter(deny, "fired") >= 6);
  CHECK(w.provider->stats().forced_backoff_level == 2);

  // Only a cure resets the back-off. Other paths succeeding with the forced
  // set, and that set serving for ten minutes (longer than any back-off),
  // cure nothing: its next rejection is unproductive and escalates.
  for (int i = 0; i < 10; ++i) CHECK(w.get(bucket, "ok").has_value());
  w.clock.advance(10min);
  for (int i = 0; i < 10; ++i) CHECK(w.get(bucket, "ok").has_value());
  CHECK(w.provider->stats().forced_backoff_level == 2);
  auto d4 = w.get(bucket, "secret");
  REQUIRE_FALSE(d4.has_value());
  CHECK(d4.error().diag.code == "AccessDenied");
  CHECK(w.sts_calls() == 4);  // declined: no STS call
  st = w.provider->stats();
  CHECK(st.forced_backoff_level == 3);  // 40 s
  CHECK(st.cures == 0);

  // A cure: every key is revoked; a request on a path the role may read is
  // rejected, and its retry with the forced set succeeds. That resets it.
  w.clock.advance(41s);
  w.srv.control.call("POST", "/revoke", R"({"access_keys": "all-issued"})");
  CHECK(w.get(bucket, "ok").has_value());
  CHECK(w.sts_calls() == 5);
  st = w.provider->stats();
  CHECK(st.cures == 1);
  CHECK(st.forced_backoff_level == 0);
  CHECK_FALSE(w.provider->forced_backoff_until().has_value());
  // The denied path after the cure: one forced refresh (the cured set is
  // not held against it), then the escalation starts again from 10 s.
  CHECK_FALSE(w.get(bucket, "secret").has_value());
  CHECK(w.sts_calls() == 6);
  CHECK_FALSE(w.get(bucket, "secret").has_value());
  CHECK(w.sts_calls() == 6);
  CHECK(w.provider->stats().forced_backoff_level == 1);
}

TEST_CASE("expiry without sleeps: refresh in the advisory window without blocking, token file re-read") {
  world w;
  std::string const bucket = "cred-expiry";
  w.make_bucket(bucket, "k");
  REQUIRE(w.provider->stats().generation == 1);
  auto const reads = w.source->sts().stats().token_reads;
  // Replace the token file; the next fetch must read the new one.
  write_file(w.token_file, "   \n");  // empty: the refresh must fail if the file is read again
  w.clock.advance(50min);
  CHECK(w.head(bucket, "k").has_value());  // served at once; the background fetch fails
  // Wait for the background fetch without sleeping: a request in the
  // mandatory window blocks on a fetch of its own only after back-off.
  w.run([&]() -> asio::awaitable<void> { co_return; });
  {
    auto const deadline = std::chrono::steady_clock::now() + 30s;
    while (w.provider->stats().failures < 1) {
      REQUIRE(std::chrono::steady_clock::now() < deadline);
      std::this_thread::yield();
    }
  }
  auto st = w.provider->stats();
  CHECK(st.generation == 1);  // the old set is kept
  REQUIRE(st.last_error);
  CHECK(st.last_error->diag.message.find("is empty") != std::string::npos);
  CHECK(w.source->sts().stats().token_reads == reads + 1);
  CHECK(w.head(bucket, "k").has_value());  // still served (back-off in force, set valid)
  write_file(w.token_file, "token-B");
  w.clock.advance(2min);  // past the failure back-off, still advisory
  CHECK(w.head(bucket, "k").has_value());
  auto const deadline = std::chrono::steady_clock::now() + 30s;
  while (w.provider->stats().generation < 2) {
    REQUIRE(std::chrono::steady_clock::now() < deadline);
    std::this_thread::yield();
  }
  CHECK(w.source->sts().stats().token_reads == reads + 2);
  CHECK(w.provider->stats().waits == 1);  // only the very first request waited
  CHECK(w.head(bucket, "k").has_value());
}

TEST_CASE("STS failing in the advisory window: the old set keeps being served") {
  floe::sts::client_config sts_cfg;
  sts_cfg.max_attempts = 1;  // every try of a fetch, 5xx included: one call per fetch
  world w({}, sts_cfg);
  std::string const bucket = "cred-sts-down";
  w.make_bucket(bucket, "k");
  int const down = w.srv.control.add_rule(
      R"({"match": {"service": "sts"}, "action": {"type": "reply", "status": 503,
          "body": "<ErrorResponse><Error><Code>ServiceUnavailable</Code><Message>down</Message></Error></ErrorResponse>"}})");
  w.clock.advance(50min);
  for (int i = 0; i < 5; ++i) CHECK(w.head(bucket, "k").has_value());
  auto const deadline = std::chrono::steady_clock::now() + 30s;
  while (w.provider->stats().failures < 1) {
    REQUIRE(std::chrono::steady_clock::now() < deadline);
    std::this_thread::yield();
  }
  auto st = w.provider->stats();
  CHECK(st.generation == 1);
  CHECK(st.invalidations == 0);  // fetch errors never invalidate
  CHECK(w.srv.control.rule_counter(down, "fired") == 1);  // backing off: not one call per request
  CHECK(w.head(bucket, "k").has_value());
}

TEST_CASE("STS directly: web identity, then AssumeRole and GetCallerIdentity signed with its keys") {
  world w;
  auto got = w.run([&]() -> asio::awaitable<floe::result<floe::credentials::credentials>> {
    co_return co_await w.provider->async_get(asio::use_awaitable);
  });
  REQUIRE(got.has_value());
  CHECK(got->access_key_id.rfind("ASIA", 0) == 0);
  CHECK(got->generation == 1);
  CHECK(got->source.find("web identity") != std::string::npos);
  floe::sts::client_config cfg;
  cfg.env = w.lookup();
  auto c = floe::sts::client::create(w.io.get_executor(), cfg);
  REQUIRE(c.has_value());
  CHECK(c.value()->endpoint().source == "AWS_ENDPOINT_URL_STS");
  auto chained = w.run([&]() -> asio::awaitable<floe::result<floe::sts::assumed_role>> {
    floe::sts::assume_role_request req;
    req.role_arn = "arn:aws:iam::123456789012:role/chained";
    req.role_session_name = "chain";
    co_return co_await c.value()->async_assume_role(req, *got, asio::use_awaitable);
  });
  REQUIRE_MESSAGE(chained.has_value(), (chained ? std::string() : chained.error().what()));
  CHECK(chained->assumed_role_arn.find("chained") != std::string::npos);
  auto who = w.run([&]() -> asio::awaitable<floe::result<floe::sts::caller_identity>> {
    co_return co_await c.value()->async_get_caller_identity(chained->creds, asio::use_awaitable);
  });
  REQUIRE_MESSAGE(who.has_value(), (who ? std::string() : who.error().what()));
  CHECK_FALSE(who->arn.empty());
  CHECK(w.srv.control.stat("signature_failures") == 0);
}

namespace {

// A world whose STS client records its attempts and rewrites the token file
// to "token-B" after the first STS error reply: a retry that reads the file
// again sends token-B, one that resends the same request sends token-A.
struct sts_world {
  std::mutex mu;
  std::vector<unsigned> sts_statuses;
  std::string token_file;
  std::unique_ptr<world> w;
  explicit sts_world(floe::sts::client_config cfg = {}) {
    cfg.random = [] { return 0.0; };  // no back-off wait between tries
    cfg.http.random = [] { return 0.0; };
    cfg.http.observer = [this](floe::http::exchange_view const& v) {
      std::lock_guard lk(mu);
      sts_statuses.push_back(v.status);
      if (v.status >= 400 && sts_statuses.size() == 1) write_file(token_file, "token-B\n");
    };
    w = std::make_unique<world>(floe::refresh::params{}, cfg);
    token_file = w->token_file;
  }
  std::size_t attempts() {
    std::lock_guard lk(mu);
    return sts_statuses.size();
  }
};

}  // namespace

TEST_CASE("STS: IDPCommunicationError, InvalidIdentityToken and Throttling are retried, reading the token file again") {
  struct retried {
    char const* code;
    char const* message;
  };
  for (auto const& c : {retried{"IDPCommunicationError", idp_message}, retried{"InvalidIdentityToken", invalid_token_message},
                        retried{"Throttling", "Rate exceeded"}}) {
    CAPTURE(c.code);
    sts_world sw;
    auto& w = *sw.w;
    int const on_a = w.srv.control.add_rule(sts_error_rule(sts_token_match("token-A"), 400, c.code, c.message));
    int const on_b = w.srv.control.add_rule(
        R"({"match": )" + sts_token_match("token-B") + R"(, "action": {"type": "delay", "ms": 0}})");
    auto got = w.creds();
    REQUIRE_MESSAGE(got.has_value(), (got ? std::string() : got.error().what()));
    CHECK(w.srv.control.rule_counter(on_a, "fired") == 1);  // token-A sent once: not resent as it was
    CHECK(w.srv.control.rule_counter(on_b, "fired") == 1);  // the retry carried the new token
    CHECK(w.sts_calls() == 2);
    CHECK(sw.attempts() == 2);
    CHECK(w.source->sts().stats().tries == 2);
    CHECK(w.source->sts().stats().token_reads == 2);
    CHECK(w.provider->stats().failures == 0);
  }
}

TEST_CASE("STS: those retries are bounded (max_attempts tries, each with the file read again)") {
  sts_world sw;
  auto& w = *sw.w;
  int const idp = w.srv.control.add_rule(sts_error_rule(R"({"service": "sts"})", 400, "IDPCommunicationError", idp_message));
  auto got = w.creds();
  REQUIRE_FALSE(got.has_value());
  CHECK(got.error().diag.code == "IDPCommunicationError");
  CHECK_MESSAGE(got.error().diag.message.find("AssumeRoleWithWebIdentity") != std::string::npos, got.error().what());
  CHECK(w.srv.control.rule_counter(idp, "fired") == 3);
  CHECK(w.source->sts().stats().tries == 3);
  CHECK(w.source->sts().stats().token_reads == 3);
  CHECK(sw.attempts() == 3);
}

TEST_CASE("STS: ExpiredTokenException and AccessDenied are not retried") {
  struct once {
    unsigned status;
    char const* code;
    char const* message;
  };
  for (auto const& c : {once{400, "ExpiredTokenException", expired_token_message},
                        once{403, "AccessDenied", "Not authorized to perform sts:AssumeRoleWithWebIdentity"}}) {
    CAPTURE(c.code);
    sts_world sw;
    auto& w = *sw.w;
    int const r = w.srv.control.add_rule(sts_error_rule(R"({"service": "sts"})", c.status, c.code, c.message));
    auto got = w.creds();
    REQUIRE_FALSE(got.has_value());
    CHECK(got.error().diag.code == c.code);
    CHECK(w.srv.control.rule_counter(r, "fired") == 1);
    CHECK(w.source->sts().stats().tries == 1);
    CHECK(w.source->sts().stats().token_reads == 1);
    CHECK(sw.attempts() == 1);
    auto st = w.provider->stats();
    CHECK(st.failures == 1);
    CHECK(st.invalidations == 0);  // a fetch error never invalidates
  }
}

TEST_CASE("STS has its own retry quota: S3's exhausted does not stop an STS retry, and the reverse") {
  world w;
  std::string const bucket = "cred-quotas";
  w.make_bucket(bucket, "k");
  auto& s3q = w.s3->http().quota();
  auto& stsq = w.source->sts().http().quota();
  w.on_io([&] { REQUIRE(s3q.try_acquire(s3q.available())); });
  REQUIRE(s3q.available() == 0);
  // S3's quota is empty: a throttled STS call is still retried.
  int const throttle = w.srv.control.add_rule(
      sts_error_rule(R"({"service": "sts"})", 400, "Throttling", "Rate exceeded", R"({"first": 1})"));
  w.provider->invalidate(1);
  auto got = w.creds();
  REQUIRE_MESSAGE(got.has_value(), (got ? std::string() : got.error().what()));
  CHECK(got->generation == 2);
  CHECK(w.srv.control.rule_counter(throttle, "fired") == 1);
  CHECK(w.sts_calls() == 3);
  CHECK(s3q.available() == 0);  // nothing refunded into S3's quota
  w.srv.control.delete_rule(throttle);
  w.on_io([&] { s3q.release(s3q.capacity()); });

  // STS's quota is empty: an S3 503 is still retried ...
  w.on_io([&] { REQUIRE(stsq.try_acquire(stsq.available())); });
  int const slow = w.srv.control.add_rule(
      R"({"match": {"service": "s3", "path": "^/cred-quotas/k$"}, "trigger": {"first": 1}, "action": {"type": "reply",
          "status": 503, "body": "<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>"}})");
  auto h = w.head(bucket, "k");
  CHECK_MESSAGE(h.has_value(), (h ? std::string() : h.error().what()));
  CHECK(w.srv.control.rule_counter(slow, "matched") == 2);
  // ... while a throttled STS call now is not: that retry draws on STS's own quota.
  int const throttle2 = w.srv.control.add_rule(
      sts_error_rule(R"({"service": "sts"})", 400, "Throttling", "Rate exceeded", R"({"first": 1})"));
  w.clock.advance(2h);  // the set expired: the next request waits for a fetch
  auto refused = w.creds();
  REQUIRE_FALSE(refused.has_value());
  CHECK(w.srv.control.rule_counter(throttle2, "fired") == 1);
  CHECK(w.srv.control.rule_counter(throttle2, "matched") == 1);
  CHECK_MESSAGE(refused.error().diag.message.find("quota") != std::string::npos, refused.error().what());
}

TEST_CASE("a cancelled waiter never aborts the detached fetch; the next request uses its set") {
  world w;
  std::string const bucket = "cred-cancel";
  w.make_bucket(bucket, "k");
  REQUIRE(w.sts_calls() == 1);
  int const hold = w.srv.control.add_rule(hold_sts);
  w.provider->invalidate(1);  // the next request waits for a forced fetch
  auto const waits_before = w.provider->stats().waits;
  asio::cancellation_signal cancel;
  auto waiting = asio::co_spawn(
      w.io,
      [&]() -> asio::awaitable<floe::result<floe::s3::get_result>> {
        std::string const key = "k";
        co_return co_await w.s3->async_head_object(bucket, key,
                                                   asio::bind_cancellation_slot(cancel.slot(), asio::use_awaitable));
      },
      asio::use_future);
  w.await_held(hold, 1);  // the fetch's STS call is on the wire
  w.await_waits(waits_before, 1);
  asio::post(w.io, [&] { cancel.emit(asio::cancellation_type::terminal); });
  auto r = waiting.get();
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code == boost::system::error_code(asio::error::operation_aborted));
  CHECK(w.provider->stats().cancelled_waits == 1);
  w.srv.control.delete_rule(hold);  // the fetch goes on without its waiter
  auto const deadline = std::chrono::steady_clock::now() + 30s;
  while (w.provider->stats().generation < 2) {
    REQUIRE_MESSAGE(std::chrono::steady_clock::now() < deadline, "the fetch never completed");
    std::this_thread::sleep_for(5ms);
  }
  CHECK(w.provider->stats().failures == 0);
  CHECK(w.head(bucket, "k").has_value());
  CHECK(w.sts_calls() == 2);  // no new STS call: the detached fetch's set is used
  CHECK(w.provider->stats().fetches == 2);
}

TEST_CASE("the auth retry is outside the attempt count and the quota: max_attempts = 1, an empty quota, still healed") {
  attempt_log log;
  world w({}, {}, [&log](floe::s3::client_config& c) {
    log.install(c);
    c.http.retry.max_attempts = 1;
  });
  std::string const bucket = "cred-one-attempt";
  w.make_bucket(bucket, "k");
  auto& q = w.s3->http().quota();
  w.on_io([&] { REQUIRE(q.try_acquire(q.available())); });
  w.srv.control.call("POST", "/revoke", R"({"access_keys": "all-issued"})");
  auto h = w.head(bucket, "k");
  CHECK_MESSAGE(h.has_value(), (h ? std::string() : h.error().what()));
  CHECK(log.count("/" + bucket + "/k", 403) == 1);
  CHECK(w.sts_calls() == 2);
  CHECK(w.provider->stats().cures == 1);
  CHECK(log.beyond_first == 0);
  CHECK(q.available() <= 1);  // nothing charged (a success adds 1 to a quota below its capacity)
  // A 503 with max_attempts = 1 is not retried: the heal above was not a retry of the HTTP layer.
  w.srv.control.add_rule(
      R"({"match": {"service": "s3", "path": "^/cred-one-attempt/k$"}, "trigger": {"first": 1}, "action": {"type": "reply",
          "status": 503, "body": "<Error><Code>SlowDown</Code><Message>slow</Message></Error>"}})");
  auto slow = w.head(bucket, "k");
  CHECK_FALSE(slow.has_value());
}

TEST_CASE("half-configured web identity: a clear error naming the missing variable") {
  auto env_of = [](std::map<std::string, std::string> m) -> floe::credentials::env_lookup {
    return [m](std::string_view n) -> std::optional<std::string> {
      auto it = m.find(std::string(n));
      if (it == m.end()) return std::nullopt;
      return it->second;
    };
  };
  asio::io_context io;
  {
    auto env = env_of({{"AWS_ROLE_ARN", "arn:aws:iam::123456789012:role/r"}, {"AWS_EC2_METADATA_DISABLED", "true"}});
    auto cfg = floe::credentials::web_identity_from_environment(env);
    REQUIRE_FALSE(cfg.has_value());
    CHECK(cfg.error().code == floe::errc::invalid_argument);
    CHECK_MESSAGE(cfg.error().what().find("AWS_WEB_IDENTITY_TOKEN_FILE is not") != std::string::npos, cfg.error().what());
    auto p = floe::credentials::make_web_identity_provider_from_environment(io.get_executor(), env);
    REQUIRE_FALSE(p.has_value());
    CHECK(p.error().what().find("AWS_WEB_IDENTITY_TOKEN_FILE") != std::string::npos);
  }
  {
    auto env = env_of({{"AWS_WEB_IDENTITY_TOKEN_FILE", "/var/run/token"}, {"AWS_ROLE_ARN", ""}});
    auto cfg = floe::credentials::web_identity_from_environment(env);
    REQUIRE_FALSE(cfg.has_value());
    CHECK(cfg.error().code == floe::errc::invalid_argument);
    CHECK_MESSAGE(cfg.error().what().find("AWS_ROLE_ARN is not") != std::string::npos, cfg.error().what());
    auto p = floe::credentials::make_web_identity_provider_from_environment(io.get_executor(), env);
    REQUIRE_FALSE(p.has_value());
    CHECK(p.error().what().find("AWS_ROLE_ARN") != std::string::npos);
  }
  {
    auto env = env_of({{"AWS_REGION", "us-east-1"}});
    auto cfg = floe::credentials::web_identity_from_environment(env);
    REQUIRE(cfg.has_value());
    CHECK_FALSE(cfg->has_value());  // neither: not configured, not an error
  }
}

TEST_CASE("one session, an S3 and an STS client, no provider passed: one revocation, one STS call, both heal") {
  world w;
  std::string const bucket = "cred-session";
  w.make_bucket(bucket, "k");
  // The session builds the default chain from the environment: web identity.
  floe::session_params sp;
  sp.env = w.lookup();
  auto session = floe::make_session(w.io.get_executor(), sp);
  REQUIRE_MESSAGE(session.has_value(), (session ? std::string() : session.error().what()));
  floe::s3::client_config sc;
  sc.addressing.endpoint_url = w.srv.proxy;
  sc.addressing.style = floe::s3::addressing_style::path;
  auto s3 = floe::s3::client::create(w.io.get_executor(), **session, sc);
  REQUIRE(s3.has_value());
  auto sts = floe::sts::client::create(w.io.get_executor(), **session);
  REQUIRE(sts.has_value());
  CHECK(&(*s3)->credentials_provider() == (*session)->credentials().get());
  CHECK((*sts)->endpoint().source == "AWS_ENDPOINT_URL_STS");

  auto head = [&]() -> asio::awaitable<floe::result<floe::s3::get_result>> {
    co_return co_await (*s3)->async_head_object(bucket, "k", asio::use_awaitable);
  };
  auto who = [&]() -> asio::awaitable<floe::result<floe::sts::caller_identity>> {
    co_return co_await (*sts)->async_get_caller_identity(asio::use_awaitable);
  };
  // Both sign with the session's one set.
  REQUIRE(w.run(head).has_value());
  auto first = w.run(who);
  REQUIRE_MESSAGE(first.has_value(), (first ? std::string() : first.error().what()));

  int const assume = w.srv.control.add_rule(
      R"({"match": {"service": "sts", "body": "Action=AssumeRoleWithWebIdentity"}, "action": {"type": "delay", "ms": 0}})");
  auto const rejections = w.srv.control.stat("revoked_rejections");
  w.srv.control.call("POST", "/revoke", R"({"access_keys": "all-issued"})");
  // Both in flight at once with the revoked set: each meets its 403,
  // invalidates the generation that signed it and is sent again.
  auto both = w.run([&]() -> asio::awaitable<std::pair<floe::error, floe::error>> {
    using namespace asio::experimental::awaitable_operators;
    auto [h, id] = co_await (head() && who());
    co_return std::pair(h ? floe::error() : h.error(), id ? floe::error() : id.error());
  });
  CHECK_MESSAGE(!both.first.code, both.first.what());
  CHECK_MESSAGE(!both.second.code, both.second.what());
  CHECK(w.srv.control.stat("revoked_rejections") == rejections + 2);
  CHECK(w.srv.control.rule_counter(assume, "fired") == 1);  // one STS call between them
}

TEST_CASE("one session: the web identity provider's STS calls go where the profile's services section says") {
  world w;
  std::string const bucket = "cred-services";
  w.make_bucket(bucket, "k");
  // No STS variable: only the profile's services section names the proxy.
  auto env_map = w.env_map;
  env_map.erase("AWS_ENDPOINT_URL_STS");
  env_map["AWS_CONFIG_FILE"] = w.dir + "/config";
  env_map["AWS_SHARED_CREDENTIALS_FILE"] = w.dir + "/credentials";
  write_file(w.dir + "/config",
             "[default]\nservices = local\n[services local]\nsts =\n  endpoint_url = " + w.srv.proxy + "\n");
  floe::session_params sp;
  sp.env = [env_map](std::string_view n) -> std::optional<std::string> {
    auto it = env_map.find(std::string(n));
    if (it == env_map.end()) return std::nullopt;
    return it->second;
  };
  // Were the section passed over, STS would be AWS's regional endpoint:
  // kept on loopback (a port nobody listens on) so that nothing leaves the host.
  sp.http.resolve_overrides = {{"sts.us-east-1.amazonaws.com", "127.0.0.1"}};
  auto session = floe::make_session(w.io.get_executor(), sp);
  REQUIRE_MESSAGE(session.has_value(), (session ? std::string() : session.error().what()));
  floe::s3::client_config sc;
  sc.addressing.endpoint_url = w.srv.proxy;
  sc.addressing.style = floe::s3::addressing_style::path;
  auto s3 = floe::s3::client::create(w.io.get_executor(), **session, sc);
  REQUIRE(s3.has_value());
  int const assume = w.srv.control.add_rule(
      R"({"match": {"service": "sts", "body": "Action=AssumeRoleWithWebIdentity"}, "action": {"type": "delay", "ms": 0}})");
  auto got = w.run([&]() -> asio::awaitable<floe::result<floe::s3::get_result>> {
    co_return co_await (*s3)->async_head_object(bucket, "k", asio::use_awaitable);
  });
  CHECK_MESSAGE(got.has_value(), (got ? std::string() : got.error().what()));
  CHECK(w.srv.control.rule_counter(assume, "fired") == 1);
}

}  // namespace credentials_refreshing_it
