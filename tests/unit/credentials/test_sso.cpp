// SSO profiles, the pure parts: settings from [sso-session NAME] sections and
// the legacy keys, the token cache's file name, the cached token and the
// portal's reply; and botocore's order of sources within one profile
// (credentials-file keys, credential_process, config-file keys).

#include "env_map.hpp"
#include "shared_config_of.hpp"

#include <floe/credentials/profile_chain.hpp>
#include <floe/credentials/shared_files.hpp>
#include <floe/providers/sso.hpp>

#include <doctest/doctest.h>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace credentials_sso_test {

using namespace floe::credentials;

TEST_CASE("order within one profile: credentials-file keys, then credential_process, then config-file keys") {
  // Keys in the config file, a process too: the process wins (botocore's
  // ProcessProvider runs before its ConfigProvider).
  auto f = shared_config_of("[profile p]\naws_access_key_id = AKIACONFIG\naws_secret_access_key = s1\n"
                            "credential_process = /bin/tool\n");
  auto p = resolve_profile_plan(f, "p");
  REQUIRE_MESSAGE(p.has_value(), (p ? "" : p.error().diag.message));
  CHECK(p->base == profile_base_kind::process);
  CHECK(p->process_command == "/bin/tool");

  // Keys in the credentials file beat the process, wherever the process is.
  auto g = shared_config_of("[profile p]\ncredential_process = /bin/tool\n",
                            "[p]\naws_access_key_id = AKIACREDS\naws_secret_access_key = s2\n");
  auto q = resolve_profile_plan(g, "p");
  REQUIRE(q.has_value());
  CHECK(q->base == profile_base_kind::static_keys);
  REQUIRE(q->static_keys);
  CHECK(q->static_keys->access_key_id == "AKIACREDS");

  // The process in the credentials file, keys in the config file: process.
  auto h = shared_config_of("[profile p]\naws_access_key_id = AKIACONFIG\naws_secret_access_key = s1\n",
                            "[p]\ncredential_process = /bin/other\n");
  auto r = resolve_profile_plan(h, "p");
  REQUIRE(r.has_value());
  CHECK(r->base == profile_base_kind::process);
  CHECK(r->process_command == "/bin/other");

  // Config-file keys alone still work.
  auto k = shared_config_of("[profile p]\naws_access_key_id = AKIACONFIG\naws_secret_access_key = s1\n");
  CHECK(resolve_profile_plan(k, "p")->static_keys->access_key_id == "AKIACONFIG");

  // The same order for a source_profile.
  auto s = shared_config_of("[profile top]\nrole_arn = arn:aws:iam::1:role/t\nsource_profile = src\n"
                            "[profile src]\naws_access_key_id = AKIACONFIG\naws_secret_access_key = s1\n"
                            "credential_process = /bin/tool\n");
  auto t = resolve_profile_plan(s, "top");
  REQUIRE(t.has_value());
  CHECK(t->base == profile_base_kind::process);
  CHECK(t->roles.size() == 1);
}

TEST_CASE("SSO plan: an sso-session section supplies the start URL and region") {
  auto f = shared_config_of("[profile dev]\nsso_session = my-sso\nsso_account_id = 111122223333\nsso_role_name = Dev\n"
                            "[sso-session my-sso]\nsso_start_url = https://my-sso-portal.awsapps.com/start\n"
                            "sso_region = eu-west-1\nsso_registration_scopes = sso:account:access\n");
  auto p = resolve_profile_plan(f, "dev");
  REQUIRE_MESSAGE(p.has_value(), (p ? "" : p.error().diag.message));
  CHECK(p->base == profile_base_kind::sso);
  CHECK(p->base_profile == "dev");
  CHECK(p->sso_session == "my-sso");
  CHECK(p->sso_start_url == "https://my-sso-portal.awsapps.com/start");
  CHECK(p->sso_region == "eu-west-1");
  CHECK(p->sso_account_id == "111122223333");
  CHECK(p->sso_role_name == "Dev");
  CHECK(contains(p->describe(), "SSO of profile dev"));

  auto c = sso_config_from_plan(*p, env_of({{"HOME", "/home/u"}}));
  REQUIRE(c.has_value());
  CHECK(c->endpoint == "https://portal.sso.eu-west-1.amazonaws.com");
  CHECK(sso_token_path(*c) == "/home/u/.aws/sso/cache/0ad374308c5a4e22f723adf10145eafad7c4031c.json");
  auto o = sso_config_from_plan(*p, env_of({{"HOME", "/home/u"}, {"AWS_ENDPOINT_URL_SSO", "http://127.0.0.1:9/"}}));
  REQUIRE(o.has_value());
  CHECK(o->endpoint == "http://127.0.0.1:9");
  CHECK(o->endpoint_source == "AWS_ENDPOINT_URL_SSO");
  CHECK_FALSE(sso_config_from_plan(*p, env_of({})).has_value());  // no HOME
}

TEST_CASE("SSO plan: the portal through the endpoint resolver (partition, AWS_ENDPOINT_URL, services, endpoint_url)") {
  auto f = shared_config_of("[profile cn]\nsso_session = s\nsso_account_id = 1\nsso_role_name = R\n"
                            "services = local\n"
                            "[profile flat]\nsso_session = s\nsso_account_id = 1\nsso_role_name = R\n"
                            "endpoint_url = http://127.0.0.1:7\n"
                            "[services local]\nsso =\n  endpoint_url = http://127.0.0.1:8/portal\n"
                            "[sso-session s]\nsso_start_url = https://x/start\nsso_region = cn-north-1\n");
  auto p = resolve_profile_plan(f, "cn");
  REQUIRE_MESSAGE(p.has_value(), (p ? "" : p.error().diag.message));
  auto const home = env_of({{"HOME", "/h"}});
  // China's partition: amazonaws.com.cn, not a hard-coded amazonaws.com.
  auto cn = sso_config_from_plan(*p, home);
  REQUIRE_MESSAGE(cn.has_value(), (cn ? "" : cn.error().diag.message));
  CHECK(cn->endpoint == "https://portal.sso.cn-north-1.amazonaws.com.cn");
  CHECK(cn->endpoint_source == "sso_region");
  // AWS_ENDPOINT_URL counts for SSO as for every service.
  auto global = sso_config_from_plan(*p, env_of({{"HOME", "/h"}, {"AWS_ENDPOINT_URL", "http://127.0.0.1:6"}}));
  REQUIRE(global.has_value());
  CHECK(global->endpoint == "http://127.0.0.1:6");
  CHECK(global->endpoint_source == "AWS_ENDPOINT_URL");
  // A resolver that knows the profile (a session's): its services block...
  auto with_profile = [&](std::string const& name, floe::env_lookup env) {
    auto prof = f.find_profile(name);
    REQUIRE(prof.has_value());
    auto r = floe::endpoints::resolver::create(env, prof->endpoint_settings());
    REQUIRE(r.has_value());
    return *r;
  };
  auto rl = with_profile("cn", home);
  auto svc = sso_config_from_plan(*p, home, &rl);
  REQUIRE_MESSAGE(svc.has_value(), (svc ? "" : svc.error().diag.message));
  CHECK(svc->endpoint == "http://127.0.0.1:8/portal");
  CHECK_MESSAGE(contains(svc->endpoint_source, "services 'local'"), svc->endpoint_source);
  // ...and its endpoint_url; AWS_ENDPOINT_URL_SSO still wins over both.
  auto q = resolve_profile_plan(f, "flat");
  REQUIRE(q.has_value());
  auto rf = with_profile("flat", home);
  auto flat = sso_config_from_plan(*q, home, &rf);
  REQUIRE(flat.has_value());
  CHECK(flat->endpoint == "http://127.0.0.1:7");
  auto envsso = env_of({{"HOME", "/h"}, {"AWS_ENDPOINT_URL_SSO", "http://127.0.0.1:5"}});
  auto rs = with_profile("cn", envsso);
  auto over = sso_config_from_plan(*p, envsso, &rs);
  REQUIRE(over.has_value());
  CHECK(over->endpoint == "http://127.0.0.1:5");
  CHECK(over->endpoint_source == "AWS_ENDPOINT_URL_SSO");
}

TEST_CASE("SSO plan: the legacy keys; the cache is named by the start URL") {
  auto f = shared_config_of("[default]\nsso_start_url = https://my-sso-portal.awsapps.com/start\n"
                            "sso_region = us-east-1\n"
                            "sso_account_id = 111122223333\nsso_role_name = Ops\n");
  auto p = resolve_profile_plan(f, "default");
  REQUIRE_MESSAGE(p.has_value(), (p ? "" : p.error().diag.message));
  CHECK(p->base == profile_base_kind::sso);
  CHECK(p->sso_session.empty());
  auto c = sso_config_from_plan(*p, env_of({{"HOME", "/h"}}));
  REQUIRE(c.has_value());
  CHECK(sso_token_path(*c) == "/h/.aws/sso/cache/c7aaaf71fcc8777ae2475525ed049d39fe16c484.json");
}

TEST_CASE("SSO plan: SSO comes after role_arn and before static keys and credential_process") {
  auto f = shared_config_of("[profile s]\nsso_start_url = https://x/start\nsso_region = us-east-1\n"
                            "sso_account_id = 1\nsso_role_name = R\ncredential_process = /bin/tool\n"
                            "[profile r]\nrole_arn = arn:aws:iam::1:role/r\nsource_profile = s\n",
                            "[s]\naws_access_key_id = AKIACREDS\naws_secret_access_key = x\n");
  CHECK(resolve_profile_plan(f, "s")->base == profile_base_kind::sso);
  auto r = resolve_profile_plan(f, "r");
  REQUIRE(r.has_value());
  CHECK(r->base == profile_base_kind::sso);
  CHECK(r->roles.size() == 1);
}

TEST_CASE("SSO plan: missing settings, a missing sso-session section, values that disagree") {
  auto f = shared_config_of("[profile half]\nsso_account_id = 1\nsso_start_url = https://x/start\n"
                            "[profile ghost]\nsso_session = nope\nsso_account_id = 1\nsso_role_name = R\n"
                            "[profile clash]\nsso_session = s\nsso_region = us-west-2\n"
                            "sso_account_id = 1\nsso_role_name = R\n"
                            "[profile tokenonly]\nsso_session = s\n"
                            "[sso-session s]\nsso_start_url = https://x/start\nsso_region = us-east-1\n");
  auto half = resolve_profile_plan(f, "half");
  REQUIRE_FALSE(half.has_value());
  CHECK(half.error().code == floe::errc::invalid_argument);
  CHECK_MESSAGE(contains(half.error().diag.message, "lacks sso_region, sso_role_name"), half.error().diag.message);
  auto ghost = resolve_profile_plan(f, "ghost");
  REQUIRE_FALSE(ghost.has_value());
  CHECK(contains(ghost.error().diag.message, "[sso-session nope]"));
  auto clash = resolve_profile_plan(f, "clash");
  REQUIRE_FALSE(clash.has_value());
  CHECK(contains(clash.error().diag.message, "sso_region differs"));
  // sso_session alone (a token-only profile) has no credentials: say what is missing.
  auto t = resolve_profile_plan(f, "tokenonly");
  REQUIRE_FALSE(t.has_value());
  CHECK(t.error().code == floe::errc::credentials_unavailable);
  CHECK(contains(t.error().diag.message, "sso_account_id and sso_role_name"));
}

TEST_CASE("SSO: cache key vectors (SHA-1 hex, lower case)") {
  CHECK(sso_cache_key("") == "da39a3ee5e6b4b0d3255bfef95601890afd80709");
  CHECK(sso_cache_key("my-sso") == "0ad374308c5a4e22f723adf10145eafad7c4031c");
  CHECK(sso_cache_key("https://my-sso-portal.awsapps.com/start") == "c7aaaf71fcc8777ae2475525ed049d39fe16c484");
}

TEST_CASE("SSO: the cached token; messages never quote it") {
  auto t = parse_sso_token(R"({"startUrl": "https://x/start", "region": "us-east-1",
      "accessToken": "SECRET-BEARER", "expiresAt": "2030-01-02T03:04:05Z"})", "cache");
  REQUIRE(t.has_value());
  CHECK(t->access_token.reveal() == "SECRET-BEARER");
  CHECK(format_iso8601(t->expires_at) == "2030-01-02T03:04:05Z");
  auto utc = parse_sso_token(R"({"accessToken": "a", "expiresAt": "2030-01-02T03:04:05UTC"})", "cache");
  REQUIRE(utc.has_value());
  CHECK(format_iso8601(utc->expires_at) == "2030-01-02T03:04:05Z");
  for (auto bad : {R"({"expiresAt": "2030-01-02T03:04:05Z"})", R"({"accessToken": "SECRET-BEARER"})",
                   R"({"accessToken": "SECRET-BEARER", "expiresAt": "soon"})", "[1]", "not json",
                   R"({"accessToken": "SECRET BEARER", "expiresAt": "2030-01-02T03:04:05Z"})"}) {
    auto r = parse_sso_token(bad, "cache");
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == floe::errc::malformed_reply);
    CHECK_FALSE(contains(r.error().diag.message, "SECRET"));
  }
}

TEST_CASE("SSO: the portal's roleCredentials reply, expiration in milliseconds") {
  auto c = parse_sso_role_credentials(R"({"roleCredentials": {"accessKeyId": "ASIASSO", "secretAccessKey": "sec",
      "sessionToken": "tok", "expiration": 1893553445000}})", "portal");
  REQUIRE_MESSAGE(c.has_value(), (c ? "" : c.error().diag.message));
  CHECK(c->access_key_id == "ASIASSO");
  CHECK(c->secret_access_key.reveal() == "sec");
  CHECK(c->session_token.reveal() == "tok");
  REQUIRE(c->expiry.has_value());
  CHECK(format_iso8601(*c->expiry) == "2030-01-02T03:04:05Z");
  for (auto bad : {R"({})", R"({"roleCredentials": {"accessKeyId": "A", "secretAccessKey": "s", "sessionToken": "t"}})",
                   R"({"roleCredentials": {"accessKeyId": "A", "secretAccessKey": "s", "sessionToken": "t", "expiration": "x"}})",
                   R"({"roleCredentials": {"accessKeyId": "", "secretAccessKey": "s", "sessionToken": "t", "expiration": 1}})",
                   // past the year 9999 (fuzz_json_credentials: such an expiry could not be printed)
                   R"({"roleCredentials": {"accessKeyId": "A", "secretAccessKey": "s", "sessionToken": "t", "expiration": 253402300800000}})",
                   R"({"roleCredentials": {"accessKeyId": "A", "secretAccessKey": "s", "sessionToken": "t", "expiration": 9223372036854775807}})"}) {
    auto r = parse_sso_role_credentials(bad, "portal");
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == floe::errc::malformed_reply);
  }
}

}  // namespace credentials_sso_test
