// floe::session without sockets: what it reads from its environment lookup
// (never the process's), and the endpoint every service id resolves to.
#include <floe/session/session.hpp>

#include <doctest/doctest.h>

#include <map>
#include <string>

namespace {

// An environment of `m` only; the shared files point where nothing is.
floe::env_lookup env_of(std::map<std::string, std::string> m) {
  m.emplace("AWS_CONFIG_FILE", "/nonexistent/floe-test/config");
  m.emplace("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/floe-test/credentials");
  return [m](std::string_view n) -> std::optional<std::string> {
    auto it = m.find(std::string(n));
    if (it == m.end()) return std::nullopt;
    return it->second;
  };
}

std::shared_ptr<floe::session> make(std::map<std::string, std::string> m, std::string region = {}) {
  floe::session_params p;
  p.env = env_of(std::move(m));
  p.region = std::move(region);
  auto s = floe::session::create(std::move(p));
  REQUIRE_MESSAGE(s.has_value(), (s ? std::string() : s.error().what()));
  return std::move(*s);
}

}  // namespace

TEST_CASE("the region: the caller's, else AWS_REGION, else AWS_DEFAULT_REGION, else none") {
  auto both = std::map<std::string, std::string>{{"AWS_REGION", "eu-west-1"}, {"AWS_DEFAULT_REGION", "us-west-2"}};
  CHECK(make(both, "ap-south-1")->region() == "ap-south-1");
  CHECK(make(both, "ap-south-1")->region_source() == "caller");
  CHECK(make(both)->region() == "eu-west-1");
  CHECK(make(both)->region_source() == "AWS_REGION");
  auto d = make({{"AWS_DEFAULT_REGION", "us-west-2"}});
  CHECK(d->region() == "us-west-2");
  CHECK(d->region_source() == "AWS_DEFAULT_REGION");
  CHECK(make({})->region().empty());
}

TEST_CASE("one resolver for every service id: AWS_ENDPOINT_URL_<SERVICE>, then AWS_ENDPOINT_URL, then AWS's host") {
  auto s = make({{"AWS_REGION", "eu-west-1"},
                 {"AWS_ENDPOINT_URL_SQS", "http://127.0.0.1:4566"},
                 {"AWS_ENDPOINT_URL", "https://local.example:8443/base"}});
  auto sqs = s->endpoint_for("sqs");
  REQUIRE(sqs.has_value());
  CHECK_FALSE(sqs->ep.tls);
  CHECK(sqs->ep.host == "127.0.0.1");
  CHECK(sqs->ep.port == 4566);
  CHECK(sqs->base_path.empty());
  CHECK(sqs->source == "AWS_ENDPOINT_URL_SQS");
  CHECK(sqs->signing_region == "eu-west-1");
  CHECK(sqs->custom);
  auto sts = s->endpoint_for("sts");
  REQUIRE(sts.has_value());
  CHECK(sts->ep.tls);
  CHECK(sts->ep.host == "local.example");
  CHECK(sts->ep.port == 8443);
  CHECK(sts->base_path == "/base");
  CHECK(sts->source == "AWS_ENDPOINT_URL");
  // The caller's URL wins over both.
  auto mine = s->endpoint_for("sqs", "http://localhost:9324");
  REQUIRE(mine.has_value());
  CHECK(mine->ep.port == 9324);
}

TEST_CASE("AWS's own hosts by partition, China's included") {
  auto cn = make({{"AWS_REGION", "cn-north-1"}})->endpoint_for("sqs");
  REQUIRE(cn.has_value());
  CHECK(cn->ep.host == "sqs.cn-north-1.amazonaws.com.cn");
  CHECK(cn->ep.tls);
  CHECK_FALSE(cn->custom);
  auto eu = make({{"AWS_REGION", "eu-central-1"}})->endpoint_for("sqs");
  REQUIRE(eu.has_value());
  CHECK(eu->ep.host == "sqs.eu-central-1.amazonaws.com");
  // STS without a region: the global endpoint, signed for us-east-1.
  auto sts = make({})->endpoint_for("sts");
  REQUIRE(sts.has_value());
  CHECK(sts->ep.host == "sts.amazonaws.com");
  CHECK(sts->signing_region == "us-east-1");
  // A configured URL that does not parse names where it came from.
  auto bad = make({{"AWS_REGION", "eu-west-1"}, {"AWS_ENDPOINT_URL_SQS", "ftp://x"}})->endpoint_for("sqs");
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error().diag.message.find("AWS_ENDPOINT_URL_SQS") != std::string::npos);
}

TEST_CASE("the proxy variables are read through the session's lookup, not the process environment") {
  auto s = make({{"HTTPS_PROXY", "http://proxy.test:3128"}, {"no_proxy", "localhost"}});
  CHECK(s->http().proxy.https_proxy == "http://proxy.test:3128");
  CHECK(s->http().proxy.no_proxy == "localhost");
  CHECK(s->http().proxy.http_proxy.empty());
  // Taken as given when the caller says so.
  floe::session_params p;
  p.env = env_of({{"HTTPS_PROXY", "http://proxy.test:3128"}});
  p.proxy_from_env = false;
  p.http.proxy = {};
  auto fixed = floe::session::create(std::move(p));
  REQUIRE(fixed.has_value());
  CHECK((*fixed)->http().proxy.https_proxy.empty());
}

TEST_CASE("a profile named explicitly must exist; none given, none is needed") {
  floe::session_params p;
  p.env = env_of({{"AWS_PROFILE", "nope"}});
  auto s = floe::session::create(std::move(p));
  REQUIRE_FALSE(s.has_value());
  CHECK(s.error().diag.message.find("nope") != std::string::npos);
  auto none = make({});
  CHECK(none->profile() == nullptr);
  CHECK(none->credentials() == nullptr);
}
