// floe::session without sockets: what it reads from its environment lookup
// (never the process's), the endpoint every service id resolves to, and the
// store quirks the S3 clients made from one session share.
#include <floe/http/tls.hpp>
#include <floe/s3/client.hpp>
#include <floe/session/session.hpp>

#include <boost/asio/io_context.hpp>
#include <doctest/doctest.h>

#include <cstdlib>
#include <map>
#include <string>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace session_session_test {

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

TEST_CASE("a default-built http::client_config reads no proxy from the process environment") {
  // The process environment says a proxy; only a session's lookup may.
  ::setenv("HTTPS_PROXY", "http://process-proxy.test:3128", 1);
  ::setenv("http_proxy", "http://process-proxy.test:3128", 1);
  floe::http::client_config c;
  CHECK(c.proxy.https_proxy.empty());
  CHECK(c.proxy.http_proxy.empty());
  auto s = make({});  // its lookup has no proxy variables
  CHECK(s->http().proxy.https_proxy.empty());
  CHECK(s->http().proxy.http_proxy.empty());
  ::unsetenv("HTTPS_PROXY");
  ::unsetenv("http_proxy");
}

TEST_CASE("AWS_CA_BUNDLE comes through the session's lookup") {
  auto s = make({{"AWS_CA_BUNDLE", "/lookup/ca.pem"}});
  auto const& tls = s->http().tls;
  REQUIRE(static_cast<bool>(tls.env));
  CHECK(tls.env("AWS_CA_BUNDLE") == std::optional<std::string>("/lookup/ca.pem"));
  auto where = floe::http::choose_ca_location(tls, tls.env, [](std::string const&) { return false; });
  CHECK(where.file == "/lookup/ca.pem");
  CHECK(where.origin.find("AWS_CA_BUNDLE") != std::string::npos);
}

TEST_CASE("store quirks: two S3 clients of one session share what one learns; another session's do not") {
  boost::asio::io_context io;
  auto a = make({}, "us-east-1");
  auto b = make({}, "us-east-1");
  auto c1 = floe::s3::client::create(io.get_executor(), *a, {});
  auto c2 = floe::s3::client::create(io.get_executor(), *a, {});
  auto other = floe::s3::client::create(io.get_executor(), *b, {});
  REQUIRE(c1.has_value());
  REQUIRE(c2.has_value());
  REQUIRE(other.has_value());
  std::string const ep = "http://rgw.test:7480";
  CHECK_FALSE((*c2)->quirks().unquoted_if_match(ep));
  (*c1)->quirks().set_unquoted_if_match(ep, true);
  (*c1)->quirks().set_honours_delete_if_match(ep, false);
  CHECK((*c2)->quirks().unquoted_if_match(ep));
  CHECK((*c2)->quirks().honours_delete_if_match(ep) == std::optional<bool>(false));
  CHECK(a->quirks()->unquoted_if_match(ep));
  CHECK_FALSE((*other)->quirks().unquoted_if_match(ep));
  CHECK_FALSE((*other)->quirks().honours_delete_if_match(ep).has_value());
}

}  // namespace session_session_test
