// How the credential sources' own fetches are sent: IMDS, container
// credentials and the SSO portal retry through the service driver by its
// rules (one 503, then success: two attempts), and the SSO portal of a
// session's default chain is found through the session's one endpoint
// resolver and reached with the session's HTTP settings (its proxy and
// AWS_CA_BUNDLE, read through its environment lookup, and its exchange
// observer).

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wnull-dereference"
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

#include "cred_support.hpp"

#include <floe/providers/chain.hpp>
#include <floe/providers/default_session.hpp>

#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

// Its own namespace: it shares a build unit with other test files
// (tests/integration/meson.build).
namespace credentials_fetch_paths_it {

using namespace cred_test;

namespace {

// An SSO profile `dev` (sso-session my-sso) in a fresh HOME, with a valid
// cached token; `extra` is appended to the config file.
std::string sso_home(std::string const& token, std::string const& extra = "") {
  std::string const home = temp_dir();
  std::filesystem::create_directories(home + "/.aws/sso/cache");
  write_file(home + "/.aws/config",
             "[profile dev]\nsso_session = my-sso\nsso_account_id = 111122223333\nsso_role_name = floe-sso-role\n" +
                 extra + "[sso-session my-sso]\nsso_start_url = https://floe-test.awsapps.com/start\n" +
                 "sso_region = us-east-1\n");
  // sha1("my-sso"), as botocore names the file.
  write_file(home + "/.aws/sso/cache/0ad374308c5a4e22f723adf10145eafad7c4031c.json",
             R"({"accessToken": ")" + token + R"(", "expiresAt": "2099-01-01T00:00:00Z"})");
  return home;
}

}  // namespace

TEST_CASE("IMDS, container and SSO fetches retry through the driver: one 503, then success, is two attempts") {
  auto& em = emulator::get();
  em.control("POST", "/_control/config",
             R"({"fail": false, "role": "floe-role", "container_token": "ct-1", "sso_token": "sso-bearer-fetch",)"
             R"( "sso_account": "111122223333", "sso_role": "floe-sso-role"})");
  loop l;
  auto fetch_once = [&](floe::credentials::env_lookup env) {
    floe::credentials::chain_config cfg;
    cfg.env = std::move(env);
    auto chain = floe::credentials::chain_provider::create(l.io.get_executor(), cfg);
    REQUIRE_MESSAGE(chain.has_value(), (chain ? "" : chain.error().what()));
    auto c = l.get(**chain);
    REQUIRE_MESSAGE(c.has_value(), (c ? "" : c.error().what()));
    return *c;
  };

  SUBCASE("IMDS") {
    auto const gets0 = em.stat("cred_gets");
    em.control("POST", "/_control/config", R"({"fail_next": {"imds": 1}})");
    // One try by default (off EC2 each costs a timeout); two asked for.
    auto c = fetch_once(env_of({{"HOME", "/nonexistent-floe-home"},
                                {"AWS_EC2_METADATA_SERVICE_ENDPOINT", em.base},
                                {"AWS_METADATA_SERVICE_NUM_ATTEMPTS", "2"}}));
    CHECK(c.access_key_id.rfind("ASIAIMDS", 0) == 0);
    CHECK(em.stat("cred_gets") == gets0 + 2);
  }
  SUBCASE("container") {
    auto const gets0 = em.stat("container_gets");
    em.control("POST", "/_control/config", R"({"fail_next": {"container": 1}})");
    auto c = fetch_once(env_of({{"HOME", "/nonexistent-floe-home"},
                                {"AWS_EC2_METADATA_DISABLED", "true"},
                                {"AWS_CONTAINER_CREDENTIALS_FULL_URI", em.base + "/container/creds"},
                                {"AWS_CONTAINER_AUTHORIZATION_TOKEN", "ct-1"}}));
    CHECK(c.access_key_id.rfind("ASIACONTAINER", 0) == 0);
    CHECK(em.stat("container_gets") == gets0 + 2);
  }
  SUBCASE("SSO") {
    std::string const home = sso_home("sso-bearer-fetch");
    auto const gets0 = em.stat("sso_gets");
    em.control("POST", "/_control/config", R"({"fail_next": {"sso": 1}})");
    auto c = fetch_once(env_of({{"HOME", home},
                                {"AWS_EC2_METADATA_DISABLED", "true"},
                                {"AWS_PROFILE", "dev"},
                                {"AWS_ENDPOINT_URL_SSO", em.base}}));
    CHECK(c.access_key_id.rfind("ASIASSO", 0) == 0);
    CHECK(em.stat("sso_gets") == gets0 + 2);
    std::filesystem::remove_all(home);
  }
}

TEST_CASE("make_session: the SSO portal through the session's resolver (services), proxy (its lookup) and observer") {
  auto& em = emulator::get();
  em.control("POST", "/_control/config",
             R"({"sso_token": "sso-bearer-session", "sso_account": "111122223333", "sso_role": "floe-sso-role"})");
  // The portal's name is not in DNS: only the proxy (the emulator, which
  // answers the absolute-form request itself) can reach it.
  std::string const portal = "portal.sso.floe-test.invalid";
  std::string const home = sso_home("sso-bearer-session", "services = local\n");
  {
    std::ofstream out(home + "/.aws/config", std::ios::app);
    out << "[services local]\nsso =\n  endpoint_url = http://" << portal << ":9\n";
  }
  loop l;
  std::vector<std::string> seen;  // "operation host", written on the loop's thread, read after it joined a future
  floe::session_params p;
  p.env = env_of({{"HOME", home}, {"AWS_EC2_METADATA_DISABLED", "true"}, {"AWS_PROFILE", "dev"},
                  {"http_proxy", em.base}});
  p.http.observer = [&seen](floe::http::exchange_view const& v) {
    seen.push_back(std::string(v.operation) + " " + (v.ep ? v.ep->host : std::string()));
  };
  auto s = floe::make_session(l.io.get_executor(), std::move(p));
  REQUIRE_MESSAGE(s.has_value(), (s ? "" : s.error().what()));
  REQUIRE((*s)->credentials() != nullptr);
  auto const gets0 = em.stat("sso_gets");
  auto c = l.get(*(*s)->credentials());
  REQUIRE_MESSAGE(c.has_value(), (c ? "" : c.error().what()));
  CHECK(c->access_key_id.rfind("ASIASSO", 0) == 0);
  CHECK(em.stat("sso_gets") == gets0 + 1);
  REQUIRE(seen.size() == 1);
  CHECK(seen[0] == "SSO GetRoleCredentials " + portal);
  std::filesystem::remove_all(home);
}

TEST_CASE("make_session: the SSO portal's TLS takes AWS_CA_BUNDLE from the session's lookup") {
  auto& em = emulator::get();
  em.control("POST", "/_control/config",
             R"({"sso_token": "sso-bearer-tls", "sso_account": "111122223333", "sso_role": "floe-sso-role"})");
  // https:// to the emulator's plain port: the connection is made, then the
  // TLS context is built from the session's settings. A CA bundle named
  // only in the session's lookup (not the process environment) that does
  // not exist must be what fails, by name.
  std::string const home = sso_home("sso-bearer-tls");
  std::string const missing = home + "/no-such-ca.pem";
  std::string const https_portal = "https://" + em.base.substr(std::string("http://").size());
  loop l;
  floe::session_params p;
  p.env = env_of({{"HOME", home}, {"AWS_EC2_METADATA_DISABLED", "true"}, {"AWS_PROFILE", "dev"},
                  {"AWS_ENDPOINT_URL_SSO", https_portal}, {"AWS_CA_BUNDLE", missing}});
  auto s = floe::make_session(l.io.get_executor(), std::move(p));
  REQUIRE_MESSAGE(s.has_value(), (s ? "" : s.error().what()));
  REQUIRE((*s)->credentials() != nullptr);
  auto const gets0 = em.stat("sso_gets");
  auto c = l.get(*(*s)->credentials());
  REQUIRE_FALSE(c.has_value());
  CHECK_MESSAGE(contains(c.error().what(), missing), c.error().what());
  CHECK_MESSAGE(contains(c.error().what(), "AWS_CA_BUNDLE"), c.error().what());
  CHECK(em.stat("sso_gets") == gets0);
  std::filesystem::remove_all(home);
}

}  // namespace credentials_fetch_paths_it
