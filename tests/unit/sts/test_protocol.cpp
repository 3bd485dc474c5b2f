// STS protocol pieces (sts/protocol.hpp): endpoint rules, request bodies,
// reply parsing, retryable codes. Pure.

#include <floe/sts/protocol.hpp>

#include <doctest/doctest.h>

#include <map>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace sts_protocol_test {

using namespace floe::sts;

namespace {
floe::credentials::env_lookup env_of(std::map<std::string, std::string> m) {
  return [m](std::string_view n) -> std::optional<std::string> {
    auto it = m.find(std::string(n));
    if (it == m.end()) return std::nullopt;
    return it->second;
  };
}
}  // namespace

TEST_CASE("endpoint rules") {
  auto global = resolve_endpoint({}, env_of({}));
  REQUIRE(global.has_value());
  CHECK(global->url == "https://sts.amazonaws.com");
  CHECK(global->signing_region == "us-east-1");
  auto regional = resolve_endpoint({}, env_of({{"AWS_REGION", "eu-west-1"}}));
  REQUIRE(regional.has_value());
  CHECK(regional->url == "https://sts.eu-west-1.amazonaws.com");
  CHECK(regional->signing_region == "eu-west-1");
  auto def = resolve_endpoint({}, env_of({{"AWS_DEFAULT_REGION", "ap-south-1"}}));
  CHECK(def->url == "https://sts.ap-south-1.amazonaws.com");
  auto sts_url = resolve_endpoint({}, env_of({{"AWS_ENDPOINT_URL_STS", "http://127.0.0.1:9000/"},
                                              {"AWS_ENDPOINT_URL", "http://127.0.0.1:1"},
                                              {"AWS_REGION", "eu-west-1"}}));
  REQUIRE(sts_url.has_value());
  CHECK(sts_url->url == "http://127.0.0.1:9000");
  CHECK(sts_url->signing_region == "eu-west-1");
  CHECK(sts_url->source == "AWS_ENDPOINT_URL_STS");
  auto any_url = resolve_endpoint({}, env_of({{"AWS_ENDPOINT_URL", "http://127.0.0.1:1"}}));
  CHECK(any_url->url == "http://127.0.0.1:1");
  auto ignored = resolve_endpoint({}, env_of({{"AWS_ENDPOINT_URL", "http://127.0.0.1:1"},
                                              {"AWS_IGNORE_CONFIGURED_ENDPOINT_URLS", "true"}}));
  CHECK(ignored->url == "https://sts.amazonaws.com");
  endpoint_params p;
  p.endpoint_url = "https://example.test";
  p.region = "us-west-2";
  auto caller = resolve_endpoint(p, env_of({{"AWS_ENDPOINT_URL_STS", "http://127.0.0.1:9000"}}));
  CHECK(caller->url == "https://example.test");
  CHECK(caller->signing_region == "us-west-2");
  CHECK_FALSE(resolve_endpoint({}, env_of({{"AWS_REGION", "eu west"}})).has_value());
  CHECK_FALSE(resolve_endpoint({}, env_of({{"AWS_ENDPOINT_URL_STS", "ftp://x"}})).has_value());
  CHECK_FALSE(resolve_endpoint({}, env_of({{"AWS_ENDPOINT_URL_STS", "http://h/path"}})).has_value());
}

TEST_CASE("request bodies") {
  web_identity_request r;
  r.role_arn = "arn:aws:iam::123456789012:role/a b";
  r.role_session_name = "s1";
  r.web_identity_token = "eyJ+/=";
  r.duration = std::chrono::seconds(900);
  auto b = web_identity_body(r);
  REQUIRE(b.has_value());
  CHECK(*b ==
        "Action=AssumeRoleWithWebIdentity&Version=2011-06-15&RoleArn=arn%3Aaws%3Aiam%3A%3A123456789012%3Arole%2Fa%20b"
        "&RoleSessionName=s1&DurationSeconds=900&WebIdentityToken=eyJ%2B%2F%3D");
  r.web_identity_token.clear();
  CHECK_FALSE(web_identity_body(r).has_value());
  r.web_identity_token = "t";
  r.role_session_name = "bad name";
  CHECK_FALSE(web_identity_body(r).has_value());
  assume_role_request a;
  a.role_arn = "arn:x";
  a.role_session_name = "chain";
  a.external_id = "ext";
  CHECK(assume_role_body(a).value() == "Action=AssumeRole&Version=2011-06-15&RoleArn=arn%3Ax&RoleSessionName=chain&ExternalId=ext");
  CHECK(caller_identity_body() == "Action=GetCallerIdentity&Version=2011-06-15");
}

TEST_CASE("reply parsing") {
  std::string const ok =
      "<AssumeRoleWithWebIdentityResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\">"
      "<AssumeRoleWithWebIdentityResult><SubjectFromWebIdentityToken>sub</SubjectFromWebIdentityToken>"
      "<Credentials><AccessKeyId>ASIAEXAMPLE</AccessKeyId><SecretAccessKey>sekrit</SecretAccessKey>"
      "<SessionToken>tok</SessionToken><Expiration>2026-11-29T20:20:08.599923Z</Expiration></Credentials>"
      "<AssumedRoleUser><AssumedRoleId>ARO:s1</AssumedRoleId><Arn>arn:aws:sts::1:assumed-role/r/s1</Arn>"
      "</AssumedRoleUser></AssumeRoleWithWebIdentityResult></AssumeRoleWithWebIdentityResponse>";
  auto r = parse_assume_role_reply(ok);
  REQUIRE(r.has_value());
  CHECK(r->creds.access_key_id == "ASIAEXAMPLE");
  CHECK(r->creds.secret_access_key.reveal() == "sekrit");
  CHECK(r->creds.session_token.reveal() == "tok");
  REQUIRE(r->creds.expiry.has_value());
  CHECK(floe::credentials::format_iso8601(*r->creds.expiry) == "2026-11-29T20:20:08Z");
  CHECK(r->assumed_role_arn == "arn:aws:sts::1:assumed-role/r/s1");
  CHECK(r->subject_from_web_identity_token == "sub");
  auto no_creds = parse_assume_role_reply("<AssumeRoleResponse><AssumeRoleResult/></AssumeRoleResponse>");
  REQUIRE_FALSE(no_creds.has_value());
  CHECK(no_creds.error().code == floe::errc::malformed_reply);
  std::string const bad_exp =
      "<AssumeRoleResponse><AssumeRoleResult><Credentials><AccessKeyId>A1</AccessKeyId><SecretAccessKey>s</SecretAccessKey>"
      "<SessionToken>t</SessionToken><Expiration>soon</Expiration></Credentials></AssumeRoleResult></AssumeRoleResponse>";
  CHECK_FALSE(parse_assume_role_reply(bad_exp).has_value());
  auto e = parse_assume_role_reply("<html/>");
  REQUIRE_FALSE(e.has_value());
  CHECK(e.error().diag.message.find("sekrit") == std::string::npos);
  auto who = parse_caller_identity_reply(
      "<GetCallerIdentityResponse><GetCallerIdentityResult><Arn>arn:aws:iam::1:user/u</Arn><UserId>U</UserId>"
      "<Account>1</Account></GetCallerIdentityResult></GetCallerIdentityResponse>");
  REQUIRE(who.has_value());
  CHECK(who->account == "1");
}

TEST_CASE("retryable STS codes") {
  CHECK(is_retryable_sts_code("IDPCommunicationError"));
  CHECK(is_retryable_sts_code("InvalidIdentityToken"));
  CHECK(is_retryable_sts_code("Throttling"));
  CHECK_FALSE(is_retryable_sts_code("ExpiredTokenException"));
  CHECK_FALSE(is_retryable_sts_code("AccessDenied"));
  CHECK(default_session_name(std::chrono::system_clock::time_point(std::chrono::milliseconds(1234))) == "floe-1234");
}

}  // namespace sts_protocol_test
