#include <floe/credentials/profile.hpp>
#include <floe/credentials/shared_files.hpp>

#include <doctest/doctest.h>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace credentials_profiles_test {

using namespace floe::credentials;

namespace {
shared_config files(std::optional<std::string_view> config, std::optional<std::string_view> creds) {
  shared_files_location w;
  w.config_file = "/h/.aws/config";
  w.credentials_file = "/h/.aws/credentials";
  auto r = parse_shared_config(w, config, creds);
  if (r.has_error()) FAIL("parse: " << r.error().diag.message);
  return *r;
}
}  // namespace

TEST_CASE("profiles: config section names as botocore splits them") {
  CHECK(config_profile_name("default") == "default");
  CHECK(config_profile_name("profile dev") == "dev");
  CHECK(config_profile_name("profile  dev ") == "dev");
  CHECK(config_profile_name("profile \"my dev\"") == "my dev");
  CHECK(config_profile_name("profile 'it''s'") == "its");
  CHECK_FALSE(config_profile_name("profile a b"));
  CHECK_FALSE(config_profile_name("profile"));
  CHECK_FALSE(config_profile_name("profilex"));
  CHECK_FALSE(config_profile_name("profile \"unbalanced"));
  CHECK_FALSE(config_profile_name("dev"));
  CHECK_FALSE(config_profile_name(" default "));
  CHECK_FALSE(config_profile_name("Default"));
  CHECK_FALSE(config_profile_name("services s"));
}

TEST_CASE("profiles: the credentials file names profiles literally") {
  auto f = files(std::nullopt, "[profile dev]\naws_access_key_id = A\naws_secret_access_key = S\n");
  CHECK(f.find_profile("profile dev"));
  CHECK_FALSE(f.find_profile("dev"));
}

TEST_CASE("profiles: [default] vs [profile default]: the later section wins whole") {
  auto f = files("[profile default]\na = 1\n[default]\nb = 2\n", std::nullopt);
  auto p = f.find_profile("default");
  REQUIRE(p);
  CHECK_FALSE(p->get("a"));
  CHECK(p->get("b") == "2");
}

TEST_CASE("profiles: the credentials file overrides the config file key by key; region comes from the merge") {
  auto f = files("[profile dev]\nregion = eu-west-1\noutput = json\ns3 =\n  addressing_style = path\n",
                 "[dev]\nregion = us-west-2\naws_access_key_id = A\naws_secret_access_key = S\n");
  auto p = f.find_profile("dev");
  REQUIRE(p);
  CHECK(p->in_config);
  CHECK(p->in_credentials);
  CHECK(p->get("region") == "us-west-2");
  CHECK(p->find("region")->where() == "/h/.aws/credentials:2");
  CHECK(p->get("output") == "json");
  CHECK(p->get_nested("s3", "addressing_style") == "path");
  CHECK_FALSE(p->get("s3"));  // nested, not plain
}

TEST_CASE("profiles: services sections give per-service settings") {
  auto f = files("[profile dev]\nservices = local\nendpoint_url = http://global:1\n"
                 "[services local]\ns3 =\n  endpoint_url = http://127.0.0.1:9000\nsqs =\n  endpoint_url = http://q\n",
                 std::nullopt);
  auto p = f.find_profile("dev");
  REQUIRE(p);
  CHECK(p->service_setting("s3", "endpoint_url") == "http://127.0.0.1:9000");
  CHECK(p->service_setting("sqs", "endpoint_url") == "http://q");
  CHECK_FALSE(p->service_setting("sts", "endpoint_url"));
  CHECK(p->get("endpoint_url") == "http://global:1");
}

TEST_CASE("profiles: static keys from the credentials file win as a whole over the config file") {
  auto f = files("[default]\naws_access_key_id = CFGKEY\naws_secret_access_key = CFGSECRET\naws_session_token = CFGTOK\n",
                 "[default]\naws_access_key_id = CREDKEY\naws_secret_access_key = CREDSECRET\n");
  auto c = credentials_from_profile(f, "default");
  REQUIRE(c.has_value());
  CHECK(c->access_key_id == "CREDKEY");
  CHECK(c->secret_access_key.reveal() == "CREDSECRET");
  CHECK_FALSE(c->has_session_token());  // not borrowed from the config file
  CHECK(c->source == "shared credentials file /h/.aws/credentials, profile 'default'");
}

TEST_CASE("profiles: static keys from the config file when the credentials file has none") {
  auto f = files("[profile dev]\naws_access_key_id = K\naws_secret_access_key = S\naws_security_token = T\n",
                 "[dev]\nregion = x\n");
  auto c = credentials_from_profile(f, "dev");
  REQUIRE(c.has_value());
  CHECK(c->access_key_id == "K");
  CHECK(c->session_token.reveal() == "T");
  CHECK(c->source == "shared config file /h/.aws/config, profile 'dev'");
}

TEST_CASE("profiles: half a key pair names the file, line and profile, and not the secret") {
  auto f = files(std::nullopt, "[dev]\n\naws_secret_access_key = TOPSECRET\n");
  auto c = credentials_from_profile(f, "dev");
  REQUIRE(c.has_error());
  CHECK(c.error().code == floe::errc::invalid_argument);
  CHECK(c.error().diag.message ==
        "/h/.aws/credentials:3: profile 'dev' sets aws_secret_access_key but not aws_access_key_id");
}

TEST_CASE("profiles: a secret with an inline comment or a continuation line is refused with its location") {
  auto f = files(std::nullopt, "[a]\naws_access_key_id = K\naws_secret_access_key = S # mine\n"
                               "[b]\naws_access_key_id = K\naws_secret_access_key = S\n   oops\n");
  auto a = credentials_from_profile(f, "a");
  REQUIRE(a.has_error());
  CHECK(a.error().diag.message.rfind("/h/.aws/credentials:3: aws_secret_access_key of profile 'a' contains whitespace", 0) == 0);
  auto b = credentials_from_profile(f, "b");
  REQUIRE(b.has_error());
  CHECK(b.error().diag.message.find("/h/.aws/credentials:6: aws_secret_access_key of profile 'b' spans more than one line") == 0);
}

TEST_CASE("profiles: a profile without static keys says what it uses instead") {
  auto f = files("[profile r]\nrole_arn = arn:aws:iam::1:role/x\nsource_profile = default\n", std::nullopt);
  auto c = credentials_from_profile(f, "r");
  REQUIRE(c.has_error());
  CHECK(c.error().code == floe::errc::credentials_unavailable);
  CHECK(c.error().diag.message.find("uses role_arn") != std::string::npos);
}

TEST_CASE("profiles: a missing profile is explained, with the [dev] vs [profile dev] near miss") {
  auto f = files("[dev]\naws_access_key_id = K\n", std::nullopt);
  auto c = credentials_from_profile(f, "dev");
  REQUIRE(c.has_error());
  CHECK(c.error().code == floe::errc::credentials_unavailable);
  auto const& m = c.error().diag.message;
  CHECK(m.find("profile 'dev' is not defined in the credentials file /h/.aws/credentials (not found)") == 0);
  CHECK(m.find("section [dev] on line 1, but there a profile is written [profile dev]") != std::string::npos);
}

}  // namespace credentials_profiles_test
