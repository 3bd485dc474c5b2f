// The endpoint resolver every service shares: which setting wins, what a
// profile's services section says, AWS's own hosts in each partition.

#include <floe/credentials/shared_files.hpp>
#include <floe/endpoints/resolver.hpp>

#include <doctest/doctest.h>

#include <map>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace endpoints_resolver_test {

using namespace floe::endpoints;
using floe::errc;

namespace {

floe::env_lookup env_of(std::map<std::string, std::string> m) {
  return [m](std::string_view n) -> std::optional<std::string> {
    auto it = m.find(std::string(n));
    if (it == m.end()) return std::nullopt;
    return it->second;
  };
}

// The settings of profile `name` in a config file with `text`.
profile_settings profile_of(std::string const& text, std::string const& name = "default") {
  floe::credentials::shared_files_location where;
  where.profile = name;
  where.config_file = "/home/u/.aws/config";
  auto files = floe::credentials::parse_shared_config(where, std::string_view(text), std::nullopt);
  REQUIRE_MESSAGE(files.has_value(), files.error().what());
  auto p = files->find_profile(name);
  REQUIRE(p.has_value());
  return p->endpoint_settings();
}

resolver make(std::map<std::string, std::string> env, std::optional<profile_settings> prof = std::nullopt) {
  auto r = resolver::create(env_of(std::move(env)), std::move(prof));
  REQUIRE_MESSAGE(r.has_value(), r.error().what());
  return std::move(*r);
}

}  // namespace

TEST_CASE("service ids name their variable and their services key") {
  CHECK(endpoint_variable("s3") == "AWS_ENDPOINT_URL_S3");
  CHECK(endpoint_variable("sqs") == "AWS_ENDPOINT_URL_SQS");
  CHECK(endpoint_variable("Elastic Beanstalk") == "AWS_ENDPOINT_URL_ELASTIC_BEANSTALK");
  CHECK(endpoint_variable("sso-oidc") == "AWS_ENDPOINT_URL_SSO_OIDC");
  CHECK(services_key("Elastic Beanstalk") == "elastic_beanstalk");
}

TEST_CASE("AWS's own endpoints: the service in the region, the partition's suffix") {
  auto r = make({});
  auto sqs = r.resolve("sqs", "eu-west-1");
  REQUIRE(sqs.has_value());
  CHECK(sqs->ep.url() == "https://sqs.eu-west-1.amazonaws.com");
  CHECK(sqs->source == "default");
  CHECK_FALSE(sqs->custom);
  CHECK(sqs->signing_region == "eu-west-1");
  CHECK(r.resolve("sqs", "cn-north-1")->ep.host == "sqs.cn-north-1.amazonaws.com.cn");
  CHECK(r.resolve("sts", "cn-northwest-1")->ep.host == "sts.cn-northwest-1.amazonaws.com.cn");
  CHECK(r.resolve("sts", "us-gov-west-1")->ep.host == "sts.us-gov-west-1.amazonaws.com");
  CHECK(r.resolve("sso", "eu-central-1")->ep.url() == "https://portal.sso.eu-central-1.amazonaws.com");
  CHECK(r.resolve("sqs", "eusc-de-east-1")->ep.host == "sqs.eusc-de-east-1.amazonaws.eu");
  // STS without a region: the global endpoint, signed for us-east-1.
  auto global = r.resolve("sts", "");
  REQUIRE(global.has_value());
  CHECK(global->ep.url() == "https://sts.amazonaws.com");
  CHECK(global->signing_region == "us-east-1");
  // Any other service needs a region; a bad one is named with its source.
  auto none = r.resolve("sqs", "");
  REQUIRE_FALSE(none.has_value());
  CHECK(none.error().code == errc::invalid_argument);
  auto bad = r.resolve("sqs", "eu west", {}, "AWS_REGION");
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error().diag.message.find("AWS_REGION") != std::string::npos);
  CHECK_FALSE(r.resolve("sqs", "evil.example.com/").has_value());
}

TEST_CASE("configured endpoints: caller, service variable, global variable, in that order") {
  auto r = make({{"AWS_ENDPOINT_URL_SQS", "http://127.0.0.1:9324/"}, {"AWS_ENDPOINT_URL", "http://127.0.0.1:1"}});
  auto sqs = r.resolve("sqs", "eu-west-1");
  REQUIRE(sqs.has_value());
  CHECK(sqs->ep.url() == "http://127.0.0.1:9324");
  CHECK(sqs->source == "AWS_ENDPOINT_URL_SQS");
  CHECK(sqs->custom);
  CHECK(sqs->signing_region == "eu-west-1");
  // Another service falls to the global variable.
  auto sts = r.resolve("sts", "");
  CHECK(sts->ep.url() == "http://127.0.0.1:1");
  CHECK(sts->source == "AWS_ENDPOINT_URL");
  CHECK(sts->signing_region == "us-east-1");
  // The caller's URL beats both.
  auto caller = r.resolve("sqs", "eu-west-1", "https://sqs.example.test");
  CHECK(caller->ep.url() == "https://sqs.example.test");
  CHECK(caller->source == "caller");
  // None configured: nullopt from configured().
  auto nothing = make({}).configured("sqs");
  REQUIRE(nothing.has_value());
  CHECK_FALSE(nothing->has_value());
}

TEST_CASE("the profile: its services section, then its endpoint_url, both after the variables") {
  std::string const config =
      "[default]\n"
      "region = eu-west-1\n"
      "endpoint_url = http://127.0.0.1:7000\n"
      "services = local\n"
      "[services local]\n"
      "sqs =\n"
      "  endpoint_url = http://127.0.0.1:9324\n"
      "sts =\n"
      "  endpoint_url = http://127.0.0.1:5000\n";
  auto prof = profile_of(config);
  CHECK(prof.services == "local");
  auto r = make({}, prof);
  auto sqs = r.resolve("sqs", "eu-west-1");
  REQUIRE(sqs.has_value());
  CHECK(sqs->ep.url() == "http://127.0.0.1:9324");
  CHECK(sqs->source == "profile 'default' services 'local'");
  CHECK(r.resolve("sts", "")->ep.url() == "http://127.0.0.1:5000");
  // No block for S3: the profile's endpoint_url, named by file and line.
  auto s3 = r.configured("s3");
  REQUIRE(s3.has_value());
  REQUIRE(s3->has_value());
  CHECK((*s3)->ep.url() == "http://127.0.0.1:7000");
  CHECK((*s3)->source == "/home/u/.aws/config:3");
  // The variables still win over the profile.
  auto env_first = make({{"AWS_ENDPOINT_URL", "http://127.0.0.1:1"}}, prof);
  CHECK(env_first.resolve("sqs", "eu-west-1")->source == "AWS_ENDPOINT_URL");
}

TEST_CASE("ignoring configured endpoints: the variable, else the profile's setting; the caller's URL stays") {
  std::string const config =
      "[default]\n"
      "endpoint_url = http://127.0.0.1:7000\n"
      "ignore_configured_endpoint_urls = true\n";
  auto prof = profile_of(config);
  auto ignoring = make({{"AWS_ENDPOINT_URL_SQS", "http://127.0.0.1:9324"}}, prof);
  CHECK(ignoring.ignores_configured());
  CHECK(ignoring.resolve("sqs", "eu-west-1")->ep.url() == "https://sqs.eu-west-1.amazonaws.com");
  CHECK(ignoring.resolve("sqs", "eu-west-1", "http://127.0.0.1:2")->ep.url() == "http://127.0.0.1:2");
  // The variable overrides the profile either way.
  auto heeding = make({{"AWS_IGNORE_CONFIGURED_ENDPOINT_URLS", "false"}}, prof);
  CHECK_FALSE(heeding.ignores_configured());
  CHECK(heeding.resolve("sqs", "eu-west-1")->ep.url() == "http://127.0.0.1:7000");
  // A value that is not true or false is an error naming where it was.
  auto bad = resolver::create(env_of({{"AWS_IGNORE_CONFIGURED_ENDPOINT_URLS", "yes"}}));
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error().diag.message.find("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS") != std::string::npos);
  auto bad_profile = resolver::create(
      env_of({}), profile_of("[default]\nignore_configured_endpoint_urls = maybe\n"));
  REQUIRE_FALSE(bad_profile.has_value());
  CHECK(bad_profile.error().diag.message.find("/home/u/.aws/config:2") != std::string::npos);
}

TEST_CASE("a configured URL that does not parse is an error naming where it came from") {
  auto r = make({{"AWS_ENDPOINT_URL_SQS", "ftp://127.0.0.1"}});
  auto e = r.resolve("sqs", "eu-west-1");
  REQUIRE_FALSE(e.has_value());
  CHECK(e.error().code == errc::invalid_argument);
  CHECK(e.error().diag.message.find("AWS_ENDPOINT_URL_SQS") != std::string::npos);
  // A base path is kept (S3 behind a path prefix); STS refuses it itself.
  auto path = make({{"AWS_ENDPOINT_URL_S3", "http://127.0.0.1:9000/store/"}}).configured("s3");
  REQUIRE(path.has_value());
  CHECK((*path)->ep.base_path == "/store");
}

}  // namespace endpoints_resolver_test
