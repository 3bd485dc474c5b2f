// The default credential chain's sources against loopback servers this
// test starts: an IMDSv2 emulator and a container credentials endpoint
// (tests/support/cred_servers.py), credential_process scripts, profile
// files in a temporary HOME, SSO profiles with the portal on loopback, and
// AssumeRole chains on moto through a private test proxy with its SigV4
// verifier on (so every request signed with chained keys is checked),
// including an ExpiredToken reply to AssumeRole that must renew the source
// credentials. The chain's order and its failures are in
// test_chain_order.cpp, the fetches' retries and a session's settings in
// test_fetch_paths.cpp.

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wnull-dereference"
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

#include "cred_support.hpp"
#include "servers.hpp"

#include <floe/providers/assume_role.hpp>
#include <floe/providers/chain.hpp>
#include <floe/providers/container.hpp>
#include <floe/providers/imds.hpp>
#include <floe/credentials/process.hpp>
#include <floe/providers/sso.hpp>
#include <floe/s3/client.hpp>
#include <floe/sts/client.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

// Its own namespace: it shares a build unit with other test files
// (tests/integration/meson.build).
namespace credentials_chain_it {

namespace asio = boost::asio;
using namespace std::chrono_literals;
using floe::test::servers;

using namespace cred_test;

namespace {

std::string base64(std::string const& in) {
  static constexpr char tbl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    unsigned v = (static_cast<unsigned char>(in[i]) << 16) | (static_cast<unsigned char>(in[i + 1]) << 8) |
                 static_cast<unsigned char>(in[i + 2]);
    for (int s : {18, 12, 6, 0}) out += tbl[(v >> s) & 63];
  }
  if (i + 1 == in.size()) {
    unsigned v = static_cast<unsigned char>(in[i]) << 16;
    out += tbl[(v >> 18) & 63];
    out += tbl[(v >> 12) & 63];
    out += "==";
  } else if (i + 2 == in.size()) {
    unsigned v = (static_cast<unsigned char>(in[i]) << 16) | (static_cast<unsigned char>(in[i + 1]) << 8);
    out += tbl[(v >> 18) & 63];
    out += tbl[(v >> 12) & 63];
    out += tbl[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

}  // namespace

TEST_CASE("IMDSv2: token PUT, role listing, credentials; a stale token is replaced once") {
  auto& em = emulator::get();
  em.control("POST", "/_control/config", R"({"fail": false, "role": "floe-role"})");
  loop l;
  auto env = env_of({{"HOME", "/nonexistent-floe-home"}, {"AWS_EC2_METADATA_SERVICE_ENDPOINT", em.base}});
  floe::credentials::chain_config cfg;
  cfg.env = env;
  auto chain = floe::credentials::chain_provider::create(l.io.get_executor(), cfg);
  REQUIRE(chain.has_value());
  CHECK((*chain)->chosen_name() == "IMDS");
  auto puts0 = em.stat("token_puts");
  auto c = l.get(**chain);
  REQUIRE_MESSAGE(c.has_value(), (c ? "" : c.error().what()));
  CHECK(c->access_key_id.rfind("ASIAIMDS", 0) == 0);
  CHECK(c->has_session_token());
  CHECK(c->expiry.has_value());
  CHECK(contains(c->source, "role floe-role"));
  CHECK(em.stat("token_puts") == puts0 + 1);
  auto g1 = c->generation;

  // Every session token goes stale: the next fetch meets a 401, gets a new
  // token once, and succeeds.
  em.control("POST", "/_control/expire-tokens");
  auto unauth0 = em.stat("unauthorized");
  (*chain)->invalidate(g1);
  auto c2 = l.get(**chain);
  REQUIRE_MESSAGE(c2.has_value(), (c2 ? "" : c2.error().what()));
  CHECK(c2->generation > g1);
  CHECK(c2->access_key_id != c->access_key_id);
  CHECK(em.stat("unauthorized") == unauth0 + 1);
  CHECK(em.stat("token_puts") == puts0 + 2);

  // The source that worked fails: its error comes back, not the "no
  // credentials found" summary of a chain that never had any; the chain
  // never falls back to another source or to anonymous.
  // (A request signed with g1 was rejected and succeeded with g2: the
  // forced-refresh back-off resets, so the next invalidation is honoured.)
  (*chain)->confirm(c2->generation);
  em.control("POST", "/_control/config", R"({"fail": true})");
  (*chain)->invalidate(c2->generation);
  auto c3 = l.get(**chain);
  REQUIRE_FALSE(c3.has_value());
  CHECK(contains(c3.error().diag.message, "instance metadata"));
  CHECK_MESSAGE(contains(c3.error().diag.message, "HTTP 500"), c3.error().diag.message);
  CHECK_FALSE(contains(c3.error().diag.message, "no credentials found"));
  CHECK_FALSE(contains(c3.error().diag.message, "environment:"));
  CHECK((*chain)->has_worked());
  em.control("POST", "/_control/config", R"({"fail": false})");
}

TEST_CASE("chain: when nothing works, one error names every source and why") {
  auto& em = emulator::get();
  loop l;
  std::string const home = temp_dir();
  {
    // IMDS pointed at the emulator, which has no role for us: IMDS fails too.
    em.control("POST", "/_control/config", R"({"fail": true})");
    floe::credentials::chain_config cfg;
    cfg.env = env_of({{"HOME", home}, {"AWS_EC2_METADATA_SERVICE_ENDPOINT", em.base}});
    auto chain = floe::credentials::chain_provider::create(l.io.get_executor(), cfg);
    REQUIRE(chain.has_value());
    auto c = l.get(**chain);
    REQUIRE_FALSE(c.has_value());
    CHECK(c.error().code == floe::errc::credentials_unavailable);
    auto const& m = c.error().diag.message;
    for (auto s : {"environment: AWS_ACCESS_KEY_ID", "web identity: AWS_ROLE_ARN", "shared files: profile 'default'",
                   "container: AWS_CONTAINER_CREDENTIALS", "IMDS: ", "HTTP 500"})
      CHECK_MESSAGE(contains(m, s), m);
    em.control("POST", "/_control/config", R"({"fail": false})");
  }
  {
    floe::credentials::chain_config cfg;
    cfg.env = env_of({{"HOME", home}, {"AWS_EC2_METADATA_DISABLED", "true"}});
    auto chain = floe::credentials::chain_provider::create(l.io.get_executor(), cfg);
    REQUIRE(chain.has_value());
    CHECK((*chain)->chosen_name() == "none");
    auto c = l.get(**chain);
    REQUIRE_FALSE(c.has_value());
    CHECK(contains(c.error().diag.message, "IMDS: disabled by AWS_EC2_METADATA_DISABLED"));
    CHECK(contains(c.error().diag.message, "container:"));
  }
  std::filesystem::remove_all(home);
}

TEST_CASE("container credentials: the token is checked, and its file is read again on every refresh") {
  auto& em = emulator::get();
  loop l;
  std::string const dir = temp_dir();
  std::string const token_file = dir + "/token";
  write_file(token_file, "container-token-A\n");
  em.control("POST", "/_control/config", R"({"container_token": "container-token-A"})");
  floe::credentials::chain_config cfg;
  cfg.env = env_of({{"HOME", dir},
                    {"AWS_EC2_METADATA_DISABLED", "true"},
                    {"AWS_CONTAINER_CREDENTIALS_FULL_URI", em.base + "/container/creds"},
                    {"AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", token_file}});
  auto chain = floe::credentials::chain_provider::create(l.io.get_executor(), cfg);
  REQUIRE(chain.has_value());
  CHECK((*chain)->chosen_name() == "container");
  auto c = l.get(**chain);
  REQUIRE_MESSAGE(c.has_value(), (c ? "" : c.error().what()));
  CHECK(c->access_key_id.rfind("ASIACONTAINER", 0) == 0);

  // The endpoint now wants token B; the file still has A: refused.
  em.control("POST", "/_control/config", R"({"container_token": "container-token-B"})");
  (*chain)->invalidate(c->generation);
  auto refused = l.get(**chain);
  REQUIRE_FALSE(refused.has_value());
  CHECK(contains(refused.error().diag.message, "HTTP 401"));
  CHECK_FALSE(contains(refused.error().diag.message, "container-token"));
  // The file is rotated: the next refresh reads it again and succeeds.
  write_file(token_file, "container-token-B");
  floe::result<floe::credentials::credentials> healed = floe::error(floe::errc::credentials_unavailable);
  auto const deadline = std::chrono::steady_clock::now() + 30s;
  // The cache backs off after the refused fetch; poll until it fetches again.
  while (!(healed = l.get(**chain)) && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(20ms);
  REQUIRE_MESSAGE(healed.has_value(), (healed ? "" : healed.error().what()));
  CHECK(healed->access_key_id != c->access_key_id);

  // A plain-http full URI off the host is refused at configuration.
  floe::credentials::chain_config bad;
  bad.env = env_of({{"HOME", dir}, {"AWS_CONTAINER_CREDENTIALS_FULL_URI", "http://192.0.2.1/creds"}});
  auto refused_cfg = floe::credentials::chain_provider::create(l.io.get_executor(), bad);
  REQUIRE_FALSE(refused_cfg.has_value());
  CHECK(refused_cfg.error().code == floe::errc::invalid_argument);
  std::filesystem::remove_all(dir);
}

TEST_CASE("credential_process from a profile: JSON contract, stderr passed through, timeout, exit status") {
  loop l;
  std::string const home = temp_dir();
  std::filesystem::create_directories(home + "/.aws");
  write_file(home + "/ok.sh",
             "#!/bin/sh\necho 'tool says hello on stderr' >&2\n"
             "printf '{\"Version\": 1, \"AccessKeyId\": \"ASIAPROCESS\", \"SecretAccessKey\": \"proc-secret\", "
             "\"SessionToken\": \"proc-token\", \"Expiration\": \"2099-01-01T00:00:00Z\"}'\n",
             true);
  write_file(home + "/slow.sh", "#!/bin/sh\nexec sleep 30\n", true);
  write_file(home + "/fails.sh", "#!/bin/sh\necho nope >&2\nexit 3\n", true);
  write_file(home + "/.aws/config", "[profile ok]\ncredential_process = " + home + "/ok.sh --arg 'with space'\n" +
                                        "[profile slow]\ncredential_process = " + home + "/slow.sh\n" +
                                        "[profile fails]\ncredential_process = " + home + "/fails.sh\n");
  auto chain_for = [&](std::string const& profile, std::chrono::milliseconds timeout) {
    floe::credentials::chain_config cfg;
    cfg.env = env_of({{"HOME", home}, {"AWS_EC2_METADATA_DISABLED", "true"}, {"AWS_PROFILE", profile}});
    cfg.process_timeout = timeout;
    auto chain = floe::credentials::chain_provider::create(l.io.get_executor(), cfg);
    REQUIRE(chain.has_value());
    return *chain;
  };
  auto ok = chain_for("ok", 10s);
  CHECK(ok->chosen_name() == "profile ok");
  auto c = l.get(*ok);
  REQUIRE_MESSAGE(c.has_value(), (c ? "" : c.error().what()));
  CHECK(c->access_key_id == "ASIAPROCESS");
  CHECK(c->session_token.reveal() == "proc-token");
  CHECK(contains(c->source, "credential_process"));
  CHECK(ok->refreshable());

  auto slow = chain_for("slow", 300ms);
  auto t0 = std::chrono::steady_clock::now();
  auto s = l.get(*slow);
  REQUIRE_FALSE(s.has_value());
  CHECK_MESSAGE(contains(s.error().diag.message, "did not finish within 300 ms"), s.error().diag.message);
  CHECK(std::chrono::steady_clock::now() - t0 < 10s);

  auto fails = chain_for("fails", 10s);
  auto f = l.get(*fails);
  REQUIRE_FALSE(f.has_value());
  CHECK(contains(f.error().diag.message, "exited with status 3"));
  std::filesystem::remove_all(home);
}

namespace {

// A temp HOME with a three-hop profile chain; the proxy's verifier knows the
// base keys and learns the rest from the AssumeRole replies it forwards.
struct role_world {
  servers& srv = servers::get();
  std::string home = temp_dir();
  loop l;
  std::shared_ptr<floe::credentials::chain_provider> chain;
  role_world() {
    srv.control.reset();
    srv.control.call("POST", "/verify", R"({"enabled": true, "secrets": {"AKIACHAINBASE0001": "chain-base-secret"}})");
    std::filesystem::create_directories(home + "/.aws");
    write_file(home + "/.aws/credentials", "[base]\naws_access_key_id = AKIACHAINBASE0001\n"
                                           "aws_secret_access_key = chain-base-secret\n");
    write_file(home + "/.aws/config",
               "[profile mid]\nrole_arn = arn:aws:iam::123456789012:role/floe-mid\nsource_profile = base\n"
               "role_session_name = floe-mid\n"
               "[profile top]\nrole_arn = arn:aws:iam::123456789012:role/floe-top\nsource_profile = mid\n"
               "role_session_name = floe-top\n");
    floe::credentials::chain_config cfg;
    cfg.env = env_of({{"HOME", home},
                      {"AWS_PROFILE", "top"},
                      {"AWS_REGION", "us-east-1"},
                      {"AWS_ENDPOINT_URL_STS", srv.proxy},
                      {"AWS_EC2_METADATA_DISABLED", "true"}});
    auto c = floe::credentials::chain_provider::create(l.io.get_executor(), cfg);
    REQUIRE_MESSAGE(c.has_value(), (c ? "" : c.error().what()));
    chain = *c;
  }
  ~role_world() {
    try {
      srv.control.reset();
    } catch (...) {
    }
    std::error_code ec;
    std::filesystem::remove_all(home, ec);
  }
  std::int64_t sts_calls() {
    auto s = srv.control.call("GET", "/stats");
    auto at = s.find("\"sts\"");
    return at == std::string::npos ? 0 : floe::test::json_int(s.substr(at), "sts");
  }
};

}  // namespace

TEST_CASE("role chain on moto: base keys -> mid role -> top role; S3 requests signed with chained keys verify") {
  role_world w;
  CHECK(w.chain->chosen_name() == "profile top");
  auto c = w.l.get(*w.chain);
  REQUIRE_MESSAGE(c.has_value(), (c ? "" : c.error().what()));
  CHECK(c->has_session_token());
  CHECK(contains(c->source, "floe-top"));
  CHECK(w.sts_calls() == 2);  // AssumeRole mid (signed with base), AssumeRole top (signed with mid)

  floe::s3::client_config sc;
  sc.addressing.endpoint_url = w.srv.proxy;
  sc.addressing.region = "us-east-1";
  sc.addressing.style = floe::s3::addressing_style::path;
  sc.env = env_of({{"AWS_EC2_METADATA_DISABLED", "true"}});
  sc.credentials = w.chain;
  auto s3 = floe::s3::client::create(w.l.io.get_executor(), sc);
  REQUIRE(s3.has_value());
  auto made = w.l.run([&]() -> asio::awaitable<floe::result<void>> {
    std::string const bucket = "floe-chain-test";
    co_return co_await (*s3)->async_create_bucket(bucket, asio::use_awaitable);
  });
  CHECK_MESSAGE(made.has_value(), (made ? "" : made.error().what()));
  CHECK(w.srv.control.stat("signature_failures") == 0);
}

TEST_CASE("role chain: ExpiredToken from AssumeRole invalidates the source credentials' generation") {
  role_world w;
  std::string const root = floe::test::need_env("FLOE_SOURCE_ROOT");
  std::ifstream in(root + "/tests/data/vectors/errors/sts-400-expiredtoken.http", std::ios::binary);
  REQUIRE(in);
  std::string const raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // STS call 1: AssumeRole mid (with base keys); call 2: AssumeRole top
  // (with mid's keys) -> ExpiredToken.
  w.srv.control.add_rule(R"({"match": {"service": "sts"}, "trigger": {"nth": [2]},
      "action": {"type": "reply", "when": "before", "raw_b64": ")" + base64(raw) + R"(", "fix_length": true}})");
  auto c = w.l.get(*w.chain);
  REQUIRE_MESSAGE(c.has_value(), (c ? "" : c.error().what()));
  // mid was fetched again (its generation 1 invalidated), then top retried.
  CHECK(w.sts_calls() == 4);
  auto& top = dynamic_cast<floe::credentials::refreshing_provider&>(w.chain->chosen());
  CHECK(top.stats().generation == 1);
  CHECK(w.srv.control.stat("signature_failures") == 0);
}

namespace {

void write_sso_token(std::string const& home, std::string const& key, std::string const& token,
                     std::string const& expires_at) {
  std::filesystem::create_directories(home + "/.aws/sso/cache");
  write_file(home + "/.aws/sso/cache/" + key + ".json",
             R"({"startUrl": "https://floe-test.awsapps.com/start", "region": "us-east-1", "accessToken": ")" + token +
                 R"(", "expiresAt": ")" + expires_at + R"("})");
}

}  // namespace

TEST_CASE("SSO profiles: cached token, portal on loopback, refreshed through the cache; `aws sso login` errors") {
  auto& em = emulator::get();
  em.control("POST", "/_control/config",
             R"({"sso_token": "sso-bearer-secret-1", "sso_account": "111122223333", "sso_role": "floe-sso-role"})");
  loop l;
  std::string const home = temp_dir();
  std::filesystem::create_directories(home + "/.aws");
  write_file(home + "/.aws/config",
             "[profile dev]\nsso_session = my-sso\nsso_account_id = 111122223333\nsso_role_name = floe-sso-role\n"
             "[sso-session my-sso]\nsso_start_url = https://floe-test.awsapps.com/start\nsso_region = us-east-1\n"
             "[profile legacy]\nsso_start_url = https://my-sso-portal.awsapps.com/start\nsso_region = us-east-1\n"
             "sso_account_id = 111122223333\nsso_role_name = floe-sso-role\n");
  // sha1("my-sso") and sha1("https://my-sso-portal.awsapps.com/start"), as botocore names the files.
  std::string const session_key = "0ad374308c5a4e22f723adf10145eafad7c4031c";
  std::string const legacy_key = "c7aaaf71fcc8777ae2475525ed049d39fe16c484";
  write_sso_token(home, session_key, "sso-bearer-secret-1", "2099-01-01T00:00:00Z");
  auto chain_for = [&](std::string const& profile) {
    floe::credentials::chain_config cfg;
    cfg.env = env_of({{"HOME", home},
                      {"AWS_EC2_METADATA_DISABLED", "true"},
                      {"AWS_PROFILE", profile},
                      {"AWS_ENDPOINT_URL_SSO", em.base}});
    auto chain = floe::credentials::chain_provider::create(l.io.get_executor(), cfg);
    REQUIRE_MESSAGE(chain.has_value(), (chain ? "" : chain.error().what()));
    return *chain;
  };
  auto no_token = [](std::string const& m) {
    CHECK_FALSE(contains(m, "sso-bearer-secret"));
  };

  auto dev = chain_for("dev");
  CHECK(dev->chosen_name() == "profile dev");
  CHECK(dev->refreshable());
  auto const gets0 = em.stat("sso_gets");
  auto c = l.get(*dev);
  REQUIRE_MESSAGE(c.has_value(), (c ? "" : c.error().what()));
  CHECK(c->access_key_id.rfind("ASIASSO", 0) == 0);
  CHECK(c->has_session_token());
  CHECK(c->expiry.has_value());
  CHECK(contains(c->source, "SSO (profile dev, account 111122223333, role floe-sso-role, sso-session my-sso)"));
  no_token(c->source);
  CHECK(em.stat("sso_gets") == gets0 + 1);

  // After `aws sso login` wrote a new token, the next fetch reads it.
  write_sso_token(home, session_key, "sso-bearer-secret-2", "2099-01-01T00:00:00Z");
  em.control("POST", "/_control/config", R"({"sso_token": "sso-bearer-secret-2"})");
  dev->invalidate(c->generation);
  auto c2 = l.get(*dev);
  REQUIRE_MESSAGE(c2.has_value(), (c2 ? "" : c2.error().what()));
  CHECK(c2->generation > c->generation);
  CHECK(c2->access_key_id != c->access_key_id);
  CHECK(em.stat("sso_gets") == gets0 + 2);

  // An expired token: a clear error, and the portal is not called.
  write_sso_token(home, session_key, "sso-bearer-secret-2", "2001-01-01T00:00:00Z");
  dev->confirm(c2->generation);  // the refresh cured the rejected request: no forced-refresh back-off
  dev->invalidate(c2->generation);
  auto expired = l.get(*dev);
  REQUIRE_FALSE(expired.has_value());
  CHECK(expired.error().code == floe::errc::credentials_unavailable);
  CHECK_MESSAGE(contains(expired.error().diag.message, "expired at 2001-01-01T00:00:00Z"), expired.error().diag.message);
  CHECK(contains(expired.error().diag.message, "aws sso login --sso-session my-sso"));
  no_token(expired.error().diag.message);
  CHECK(em.stat("sso_gets") == gets0 + 2);

  // The legacy form, no token cached: a clear error.
  auto legacy = chain_for("legacy");
  auto missing = l.get(*legacy);
  REQUIRE_FALSE(missing.has_value());
  CHECK_MESSAGE(contains(missing.error().diag.message, "no cached SSO token at " + home + "/.aws/sso/cache/" + legacy_key),
                missing.error().diag.message);
  CHECK(contains(missing.error().diag.message, "aws sso login --profile legacy"));
  CHECK(em.stat("sso_gets") == gets0 + 2);

  // A cached token the portal refuses (revoked): the 401 and the hint.
  write_sso_token(home, legacy_key, "sso-bearer-secret-revoked", "2099-01-01T00:00:00Z");
  auto legacy2 = chain_for("legacy");
  auto refused = l.get(*legacy2);
  REQUIRE_FALSE(refused.has_value());
  CHECK_MESSAGE(contains(refused.error().diag.message, "HTTP 401"), refused.error().diag.message);
  CHECK(contains(refused.error().diag.message, "aws sso login --profile legacy"));
  no_token(refused.error().diag.message);
  // And with the token the portal knows, the legacy form works.
  write_sso_token(home, legacy_key, "sso-bearer-secret-2", "2099-01-01T00:00:00Z");
  auto legacy3 = chain_for("legacy");
  auto ok = l.get(*legacy3);
  REQUIRE_MESSAGE(ok.has_value(), (ok ? "" : ok.error().what()));
  CHECK(contains(ok->source, "start URL https://my-sso-portal.awsapps.com/start"));
  std::filesystem::remove_all(home);
}

}  // namespace credentials_chain_it
