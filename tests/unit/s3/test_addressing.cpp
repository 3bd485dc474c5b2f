#include <floe/credentials/shared_files.hpp>
#include <floe/s3/addressing.hpp>

#include <doctest/doctest.h>

#include <map>
#include <thread>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace s3_addressing_test {

using namespace floe::s3;
namespace cr = floe::credentials;

namespace {
cr::env_lookup env_of(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](std::string_view name) -> std::optional<std::string> {
    auto it = vars.find(std::string(name));
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

addressing_config aws(std::string region = "eu-west-1") {
  addressing_params p;
  p.region = std::move(region);
  auto r = resolve_addressing(p, cr::empty_environment(), nullptr);
  REQUIRE(r.has_value());
  return *r;
}

addressing_config custom(std::string url, std::optional<addressing_style> style = std::nullopt) {
  addressing_params p;
  p.endpoint_url = std::move(url);
  p.region = "us-east-1";
  p.style = style;
  auto r = resolve_addressing(p, cr::empty_environment(), nullptr);
  REQUIRE(r.has_value());
  return *r;
}

std::string url_of(addressing_config const& cfg, std::string_view bucket, std::optional<std::string_view> key) {
  auto t = resolve_target(cfg, bucket, key);
  if (t.has_error()) return "ERR " + t.error().diag.message;
  return t->url();
}

cr::profile profile_from(std::string_view config_text) {
  cr::shared_files_location w;
  w.config_file = "/h/config";
  w.credentials_file = "/h/credentials";
  auto sc = cr::parse_shared_config(w, config_text, std::nullopt);
  REQUIRE(sc.has_value());
  auto p = sc->find_profile("p");
  REQUIRE(p.has_value());
  return *p;
}
}  // namespace

// Expected URLs below were checked against botocore 1.43 (the AWS CLI's engine).
TEST_CASE("target: virtual-hosted on AWS, keys encoded with '/' kept and taken literally") {
  auto cfg = aws();
  CHECK(url_of(cfg, "b-1", "k") == "https://b-1.s3.eu-west-1.amazonaws.com/k");
  CHECK(url_of(cfg, "b-1", "/a") == "https://b-1.s3.eu-west-1.amazonaws.com//a");
  CHECK(url_of(cfg, "b-1", "a//b/./../c") == "https://b-1.s3.eu-west-1.amazonaws.com/a//b/./../c");
  CHECK(url_of(cfg, "b-1", "a b+c%d=e~f") == "https://b-1.s3.eu-west-1.amazonaws.com/a%20b%2Bc%25d%3De~f");
  CHECK(url_of(cfg, "b-1", "\xc3\xbc\x01") == "https://b-1.s3.eu-west-1.amazonaws.com/%C3%BC%01");
  CHECK(url_of(cfg, "b-1", "line\nbreak\t\x7f") == "https://b-1.s3.eu-west-1.amazonaws.com/line%0Abreak%09%7F");
  CHECK(url_of(cfg, "b-1", "?#&[]@!$'()*,;:") ==
        "https://b-1.s3.eu-west-1.amazonaws.com/%3F%23%26%5B%5D%40%21%24%27%28%29%2A%2C%3B%3A");
  auto t = resolve_target(cfg, "b-1", "k");
  REQUIRE(t.has_value());
  CHECK(t->scheme == "https");
  CHECK(t->host == "b-1.s3.eu-west-1.amazonaws.com");
  CHECK(t->port == 443);
  CHECK(t->host_header == "b-1.s3.eu-west-1.amazonaws.com");
  CHECK(t->path == "/k");
  CHECK(t->region == "eu-west-1");
  CHECK(t->virtual_hosted);
}

TEST_CASE("target: key '/a' in bucket b is path /b//a in path style") {
  auto cfg = aws();
  cfg.style = addressing_style::path;
  auto t = resolve_target(cfg, "b", std::string_view("/a"));
  // "b" is too short for a host label anyway; path style either way.
  REQUIRE(t.has_value());
  CHECK(t->path == "/b//a");
  CHECK(t->host == "s3.eu-west-1.amazonaws.com");
  CHECK_FALSE(t->virtual_hosted);
}

TEST_CASE("target: path style for dotted, legacy or short bucket names on AWS") {
  auto cfg = aws();
  CHECK(url_of(cfg, "my.bucket", "k") == "https://s3.eu-west-1.amazonaws.com/my.bucket/k");
  CHECK(url_of(cfg, "My_Bucket", "k") == "https://s3.eu-west-1.amazonaws.com/My_Bucket/k");
  CHECK(url_of(cfg, "ab", "k") == "https://s3.eu-west-1.amazonaws.com/ab/k");
  CHECK(url_of(cfg, "a-", "k") == "https://s3.eu-west-1.amazonaws.com/a-/k");
  CHECK(url_of(cfg, "192.168.1.1", "k") == "https://s3.eu-west-1.amazonaws.com/192.168.1.1/k");
  CHECK(url_of(cfg, std::string(64, 'b'), "k") == "https://s3.eu-west-1.amazonaws.com/" + std::string(64, 'b') + "/k");
  CHECK(url_of(cfg, std::string(63, 'b'), "k") == "https://" + std::string(63, 'b') + ".s3.eu-west-1.amazonaws.com/k");
}

TEST_CASE("target: forced virtual falls back to path style where a host name cannot work") {
  auto cfg = aws();
  cfg.style = addressing_style::virtual_hosted;
  CHECK(url_of(cfg, "my.bucket", "k") == "https://s3.eu-west-1.amazonaws.com/my.bucket/k");
  CHECK(url_of(cfg, "My_Bucket", "k") == "https://s3.eu-west-1.amazonaws.com/My_Bucket/k");
  CHECK(url_of(cfg, "b-1", "k") == "https://b-1.s3.eu-west-1.amazonaws.com/k");
  CHECK(url_of(custom("http://localhost:9000", addressing_style::virtual_hosted), "my.bucket", "k") ==
        "http://my.bucket.localhost:9000/k");
  CHECK(url_of(custom("https://minio.example:9000", addressing_style::virtual_hosted), "my.bucket", "k") ==
        "https://minio.example:9000/my.bucket/k");
  CHECK(url_of(custom("http://127.0.0.1:9000", addressing_style::virtual_hosted), "b-1", "k") ==
        "http://127.0.0.1:9000/b-1/k");
}

TEST_CASE("target: custom endpoints use path style, keep a base path, IPv6 and ports") {
  CHECK(url_of(custom("http://127.0.0.1:9000"), "b-1", "k") == "http://127.0.0.1:9000/b-1/k");
  CHECK(url_of(custom("http://localhost:9000"), "b-1", "k") == "http://localhost:9000/b-1/k");
  CHECK(url_of(custom("http://localhost:9000/base/"), "b-1", "k") == "http://localhost:9000/base/b-1/k");
  CHECK(url_of(custom("http://[::1]:9000"), "b-1", "k") == "http://[::1]:9000/b-1/k");
  CHECK(url_of(custom("https://s3.amazonaws.com"), "b-1", "k") == "https://s3.amazonaws.com/b-1/k");
  auto t = resolve_target(custom("https://MinIO.Example:443/"), "b-1", "k");
  REQUIRE(t.has_value());
  CHECK(t->host == "minio.example");
  CHECK(t->host_header == "minio.example");
  CHECK(t->port == 443);
  auto v6 = resolve_target(custom("http://[::1]:9000"), "b-1", "k");
  CHECK(v6->host == "::1");
  CHECK(v6->host_header == "[::1]:9000");
  auto v = resolve_target(custom("http://h:8080", addressing_style::virtual_hosted), "b-1", "k");
  CHECK(v->host == "b-1.h");
  CHECK(v->host_header == "b-1.h:8080");
}

TEST_CASE("target: bucket-level and service-level paths") {
  auto cfg = aws();
  CHECK(url_of(cfg, "b-1", std::nullopt) == "https://b-1.s3.eu-west-1.amazonaws.com/");
  cfg.style = addressing_style::path;
  CHECK(url_of(cfg, "b-1", std::nullopt) == "https://s3.eu-west-1.amazonaws.com/b-1");
  CHECK(url_of(custom("http://localhost:9000/base"), "b-1", std::nullopt) == "http://localhost:9000/base/b-1");
  auto s = resolve_service_target(aws());
  CHECK(s->url() == "https://s3.eu-west-1.amazonaws.com/");
  CHECK(resolve_service_target(custom("http://h:1/x/"))->url() == "http://h:1/x/");
}

TEST_CASE("target: partitions and us-east-1") {
  CHECK(url_of(aws("us-east-1"), "b-1", "k") == "https://b-1.s3.amazonaws.com/k");
  CHECK(url_of(aws("cn-north-1"), "b-1", "k") == "https://b-1.s3.cn-north-1.amazonaws.com.cn/k");
  CHECK(url_of(aws("us-gov-west-1"), "b-1", "k") == "https://b-1.s3.us-gov-west-1.amazonaws.com/k");
  CHECK(url_of(aws("us-isob-east-1"), "b-1", "k") == "https://b-1.s3.us-isob-east-1.sc2s.sgov.gov/k");
  CHECK(url_of(aws("us-iso-east-1"), "b-1", "k") == "https://b-1.s3.us-iso-east-1.c2s.ic.gov/k");
  CHECK(url_of(aws("eusc-de-east-1"), "b-1", "k") == "https://b-1.s3.eusc-de-east-1.amazonaws.eu/k");
  auto cfg = aws("us-east-1");
  cfg.us_east_1_regional = true;
  CHECK(url_of(cfg, "b-1", "k") == "https://b-1.s3.us-east-1.amazonaws.com/k");
  CHECK(resolve_target(aws("us-east-1"), "b-1", "k")->region == "us-east-1");
}

TEST_CASE("target: a region learned from a redirect moves the host on AWS, only the signing region elsewhere") {
  auto t = resolve_target(aws("us-east-1"), "b-1", "k", "ap-southeast-2");
  CHECK(t->url() == "https://b-1.s3.ap-southeast-2.amazonaws.com/k");
  CHECK(t->region == "ap-southeast-2");
  auto c = resolve_target(custom("http://127.0.0.1:9000"), "b-1", "k", "zg1");
  CHECK(c->url() == "http://127.0.0.1:9000/b-1/k");
  CHECK(c->region == "zg1");
  auto bad = resolve_target(aws(), "b-1", "k", "evil.example.com/");
  REQUIRE(bad.has_error());
  CHECK(bad.error().code == floe::errc::invalid_argument);
}

TEST_CASE("target: keys: empty and over 1024 bytes refused; 1000 and 1024 bytes fine") {
  auto cfg = aws();
  auto e = resolve_target(cfg, "b-1", std::string_view(""));
  REQUIRE(e.has_error());
  CHECK(e.error().diag.message == "object key is empty");
  std::string k1000(1000, 'k');
  CHECK(resolve_target(cfg, "b-1", std::string_view(k1000))->path == "/" + k1000);
  std::string k1024(1024, '/');
  CHECK(resolve_target(cfg, "b-1", std::string_view(k1024))->path == "/" + k1024);
  std::string k1025(1025, 'k');
  auto l = resolve_target(cfg, "b-1", std::string_view(k1025));
  REQUIRE(l.has_error());
  CHECK(l.error().diag.message == "object key of 1025 bytes is longer than 1024");
  std::string multibyte;
  for (int i = 0; i < 333; ++i) multibyte += "\xe2\x82\xac";  // 999 bytes of euro signs
  CHECK(resolve_target(cfg, "b-1", std::string_view(multibyte))->path.size() == 1 + 999 * 3);
  std::string nul("a\0b", 3);
  CHECK(resolve_target(cfg, "b-1", std::string_view(nul))->path == "/a%00b");
}

TEST_CASE("target: resolved again into one reused target, each result equals a fresh resolution") {
  struct step {
    addressing_config cfg;
    std::string bucket;
    std::optional<std::string> key;
    std::string region;
  };
  std::vector<step> steps = {
      {aws(), "b-1", "k", ""},
      {custom("http://[::1]:9000/base"), "bucket", "dir/a b", ""},
      {aws("us-east-1"), "my.dotted.bucket", "x", ""},
      {aws(), "b-1", std::nullopt, "ap-south-1"},
      {custom("https://minio.local"), "bkt", "k", ""},
      {custom("http://127.0.0.1:18777"), "bench", "1k", ""},
      {aws(), "Bad_Bucket", "k", ""},  // refused: nothing of the last target may be taken for this one
      {custom("http://h:80", addressing_style::virtual_hosted), "vh", "k", "eu-west-3"},
      {aws(), "b-1", "", ""},  // refused: empty key
      {aws("cn-north-1"), "b-2", "k2", ""},
  };
  request_target reused;
  for (auto const& s : steps) {
    CAPTURE(s.bucket);
    std::optional<std::string_view> key;
    if (s.key) key = *s.key;
    auto fresh = resolve_target(s.cfg, s.bucket, key, s.region);
    floe::error why;
    bool const ok = resolve_target_into(s.cfg, s.bucket, key, s.region, reused, why);
    REQUIRE(ok == fresh.has_value());
    if (!ok) {
      CHECK(why.code == fresh.error().code);
      CHECK(why.diag.message == fresh.error().diag.message);
      continue;
    }
    CHECK(reused.scheme == fresh->scheme);
    CHECK(reused.host == fresh->host);
    CHECK(reused.port == fresh->port);
    CHECK(reused.host_header == fresh->host_header);
    CHECK(reused.path == fresh->path);
    CHECK(reused.region == fresh->region);
    CHECK(reused.virtual_hosted == fresh->virtual_hosted);
    CHECK(reused.url() == fresh->url());
  }
  // And the fresh resolutions are what they always were.
  CHECK(url_of(steps[1].cfg, "bucket", "dir/a b") == "http://[::1]:9000/base/bucket/dir/a%20b");
  CHECK(url_of(steps[5].cfg, "bench", "1k") == "http://127.0.0.1:18777/bench/1k");
}

TEST_CASE("bucket names: what can be addressed") {
  for (auto ok : {"b", "My_Bucket", "a.b-c_d", "192.168.1.1"}) CHECK_MESSAGE(validate_bucket_name(ok).has_value(), ok);
  CHECK(validate_bucket_name(std::string(255, 'a')).has_value());
  CHECK(validate_bucket_name(std::string(256, 'a')).error().diag.message ==
        "bucket name '" + std::string(256, 'a') + "': longer than 255 characters");
  CHECK(validate_bucket_name("").error().diag.message == "bucket name '': empty");
  for (auto bad : {"a/b", "a b", "a?b", "a#b", "a%2Fb", "\xc3\xbc", "a\nb"}) {
    auto r = validate_bucket_name(bad);
    REQUIRE_MESSAGE(r.has_error(), bad);
    CHECK(r.error().code == floe::errc::invalid_argument);
  }
  CHECK(validate_bucket_name("a\nb").error().diag.message ==
        "bucket name 'a\\x0Ab': only letters, digits, '.', '-' and '_' are allowed");
  auto r = resolve_target(aws(), "a/b", "k");
  REQUIRE(r.has_error());
  CHECK(r.error().diag.message.find("bucket name 'a/b'") == 0);
}

TEST_CASE("bucket names: what AWS lets you create") {
  auto rule = bucket_name_rules::aws_create;
  for (auto ok : {"abc", "my.bucket-1", "a1b", "0ab"}) CHECK_MESSAGE(validate_bucket_name(ok, rule).has_value(), ok);
  std::map<std::string, std::string> bad = {
      {"ab", "must be 3 to 63 characters long"},
      {std::string(64, 'a'), "must be 3 to 63 characters long"},
      {"My-bucket", "only lower-case letters, digits, '.' and '-' are allowed"},
      {"my_bucket", "only lower-case letters, digits, '.' and '-' are allowed"},
      {"-abc", "must start and end with a letter or digit"},
      {"abc.", "must start and end with a letter or digit"},
      {"a..b", "must not contain '..'"},
      {"a.-b", "must not contain '.-' or '-.'"},
      {"10.0.0.1", "must not look like an IP address"},
      {"xn--abc", "the prefix 'xn--' is reserved"},
      {"sthree-x", "the prefix 'sthree-' is reserved"},
      {"amzn-s3-demo-x", "the prefix 'amzn-s3-demo-' is reserved"},
      {"x-s3alias", "the suffix '-s3alias' is reserved"},
      {"x--ol-s3", "the suffix '--ol-s3' is reserved"},
      {"x.mrap", "the suffix '.mrap' is reserved"},
      {"b--use1-az4--x-s3", "the suffix '--x-s3' is reserved"},
      {"x--table-s3", "the suffix '--table-s3' is reserved"},
  };
  for (auto const& kv : bad) {
    std::string const& name = kv.first;
    std::string const& why = kv.second;
    auto r = validate_bucket_name(name, rule);
    REQUIRE_MESSAGE(r.has_error(), name);
    CHECK(r.error().diag.message == "bucket name '" + name + "': " + why);
  }
}

TEST_CASE("dns compatibility") {
  CHECK(is_dns_compatible("abc", false));
  CHECK_FALSE(is_dns_compatible("a.bc", false));
  CHECK(is_dns_compatible("a.bc", true));
  CHECK_FALSE(is_dns_compatible("a..bc", true));
  CHECK_FALSE(is_dns_compatible("a-.bc", true));
  CHECK_FALSE(is_dns_compatible("1.2.3.4", true));
  CHECK(is_dns_compatible("1.2.3.4a", true));
  CHECK_FALSE(is_dns_compatible("ABC", false));
}

TEST_CASE("endpoint URLs: accepted forms") {
  auto e = parse_endpoint_url("HTTPS://S3.Example.com:8443/a/b//");
  REQUIRE(e.has_value());
  CHECK(e->scheme == "https");
  CHECK(e->host == "s3.example.com");
  CHECK(e->port == 8443);
  CHECK(e->base_path == "/a/b");
  CHECK(e->authority() == "s3.example.com:8443");
  CHECK(parse_endpoint_url("http://h")->port == 80);
  CHECK(parse_endpoint_url("http://h:80")->authority() == "h");
  CHECK(parse_endpoint_url("http://10.0.0.1:1")->host_is_ip);
  CHECK_FALSE(parse_endpoint_url("http://10.0.0.1a")->host_is_ip);
  CHECK(parse_endpoint_url("http://[fd00:ec2::23]")->authority() == "[fd00:ec2::23]");
}

TEST_CASE("endpoint URLs: refused forms name the source and the reason") {
  std::map<std::string, std::string> bad = {
      {"localhost:9000", "expected scheme://host[:port][/path]"},
      {"ftp://h", "the scheme must be http or https"},
      {"http://u:p@h", "user info is not allowed"},
      {"http://h/?x=1", "a query or fragment is not allowed"},
      {"http://h#f", "a query or fragment is not allowed"},
      {"http://", "no host"},
      {"http://:9000", "no host"},
      {"http://h:", "empty port"},
      {"http://h:0", "port out of range"},
      {"http://h:65536", "port out of range"},
      {"http://h:99999999999999999999", "invalid port"},
      {"http://h:9x", "invalid port"},
      {"http://::1", "an IPv6 host must be in brackets"},
      {"http://[::1", "unterminated IPv6 literal"},
      {"http://[zz]", "invalid IPv6 literal"},
      {"http://h h", "invalid character in the host name"},
      {"http://h/a b", "the path must be percent-encoded (no spaces, control or non-ASCII bytes)"},
  };
  for (auto const& kv : bad) {
    std::string const& url = kv.first;
    std::string const& why = kv.second;
    auto r = parse_endpoint_url(url, "AWS_ENDPOINT_URL");
    REQUIRE_MESSAGE(r.has_error(), url);
    CHECK(r.error().diag.message == "AWS_ENDPOINT_URL '" + url + "': " + why);
  }
}

TEST_CASE("resolve: endpoint precedence caller > AWS_ENDPOINT_URL_S3 > AWS_ENDPOINT_URL > services > profile") {
  auto prof = profile_from("[profile p]\nservices = svc\nendpoint_url = http://profile:1\nregion = eu-north-1\n"
                           "[services svc]\ns3 =\n  endpoint_url = http://services:2\n");
  auto env = env_of({{"AWS_ENDPOINT_URL_S3", "http://s3env:3"}, {"AWS_ENDPOINT_URL", "http://env:4"}});
  addressing_params caller;
  caller.endpoint_url = "http://caller:5";
  auto r = resolve_addressing(caller, env, &prof);
  CHECK(r->custom_endpoint->host == "caller");
  CHECK(r->endpoint_source == "caller");
  r = resolve_addressing({}, env, &prof);
  CHECK(r->custom_endpoint->host == "s3env");
  CHECK(r->endpoint_source == "AWS_ENDPOINT_URL_S3");
  r = resolve_addressing({}, env_of({{"AWS_ENDPOINT_URL", "http://env:4"}}), &prof);
  CHECK(r->custom_endpoint->host == "env");
  r = resolve_addressing({}, cr::empty_environment(), &prof);
  CHECK(r->custom_endpoint->host == "services");
  CHECK(r->endpoint_source == "profile 'p' services 'svc'");
  auto plain = profile_from("[profile p]\nendpoint_url = http://profile:1\n");
  r = resolve_addressing({}, cr::empty_environment(), &plain);
  CHECK(r->custom_endpoint->host == "profile");
  CHECK(r->endpoint_source == "/h/config:2");
  r = resolve_addressing({}, cr::empty_environment(), nullptr);
  CHECK_FALSE(r->custom_endpoint);
  CHECK(r->endpoint_source == "default");
}

TEST_CASE("resolve: configured endpoints can be ignored, except the caller's") {
  auto prof = profile_from("[profile p]\nendpoint_url = http://profile:1\n");
  auto env = env_of({{"AWS_ENDPOINT_URL", "http://env:4"}, {"AWS_IGNORE_CONFIGURED_ENDPOINT_URLS", "TRUE"}});
  auto r = resolve_addressing({}, env, &prof);
  CHECK_FALSE(r->custom_endpoint);
  addressing_params caller;
  caller.endpoint_url = "http://caller:5";
  CHECK(resolve_addressing(caller, env, &prof)->custom_endpoint->host == "caller");
  auto pi = profile_from("[profile p]\nendpoint_url = http://profile:1\nignore_configured_endpoint_urls = true\n");
  CHECK_FALSE(resolve_addressing({}, cr::empty_environment(), &pi)->custom_endpoint);
  auto bad = resolve_addressing({}, env_of({{"AWS_IGNORE_CONFIGURED_ENDPOINT_URLS", "yes"}}), nullptr);
  CHECK(bad.has_error());
}

TEST_CASE("resolve: region precedence caller > AWS_REGION > AWS_DEFAULT_REGION > profile > us-east-1") {
  auto prof = profile_from("[profile p]\nregion = eu-north-1\n");
  addressing_params caller;
  caller.region = "ap-south-1";
  auto env = env_of({{"AWS_REGION", "us-west-1"}, {"AWS_DEFAULT_REGION", "us-west-2"}});
  CHECK(resolve_addressing(caller, env, &prof)->region == "ap-south-1");
  CHECK(resolve_addressing({}, env, &prof)->region == "us-west-1");
  CHECK(resolve_addressing({}, env_of({{"AWS_DEFAULT_REGION", "us-west-2"}}), &prof)->region == "us-west-2");
  auto r = resolve_addressing({}, env_of({{"AWS_REGION", ""}}), &prof);
  CHECK(r->region == "eu-north-1");
  CHECK(r->region_source == "/h/config:2");
  auto d = resolve_addressing({}, cr::empty_environment(), nullptr);
  CHECK(d->region == "us-east-1");
  CHECK(d->region_source == "default");
}

TEST_CASE("resolve: a region that could steer the host is refused; custom endpoints accept zone group names") {
  for (auto bad : {"evil.com", "us-east-1/", "US-EAST-1", "a b", "-x"}) {
    addressing_params p;
    p.region = bad;
    auto r = resolve_addressing(p, cr::empty_environment(), nullptr);
    REQUIRE_MESSAGE(r.has_error(), bad);
    CHECK(r.error().diag.message.find("from caller is not an AWS region name") != std::string::npos);
  }
  addressing_params p;
  p.region = "default_zg";
  p.endpoint_url = "http://127.0.0.1:8000";
  CHECK(resolve_addressing(p, cr::empty_environment(), nullptr).has_value());
  p.region = "zg.evil";
  CHECK(resolve_addressing(p, cr::empty_environment(), nullptr).has_error());
}

TEST_CASE("resolve: addressing style and the us-east-1 endpoint from the profile's s3 block") {
  auto prof = profile_from("[profile p]\ns3 =\n  addressing_style = path\n  us_east_1_regional_endpoint = regional\n");
  auto r = resolve_addressing({}, cr::empty_environment(), &prof);
  CHECK(r->style == addressing_style::path);
  CHECK(r->us_east_1_regional);
  addressing_params caller;
  caller.style = addressing_style::virtual_hosted;
  CHECK(resolve_addressing(caller, cr::empty_environment(), &prof)->style == addressing_style::virtual_hosted);
  auto top = profile_from("[profile p]\ns3_us_east_1_regional_endpoint = regional\n");
  CHECK(resolve_addressing({}, cr::empty_environment(), &top)->us_east_1_regional);
  CHECK_FALSE(resolve_addressing({}, env_of({{"AWS_S3_US_EAST_1_REGIONAL_ENDPOINT", "legacy"}}), &top)->us_east_1_regional);
  auto bad = profile_from("[profile p]\ns3 =\n  addressing_style = sideways\n");
  auto e = resolve_addressing({}, cr::empty_environment(), &bad);
  REQUIRE(e.has_error());
  CHECK(e.error().diag.message == "/h/config:2: s3 addressing_style must be auto, virtual or path");
}

TEST_CASE("resolve: a bad endpoint URL from the environment names the variable") {
  auto r = resolve_addressing({}, env_of({{"AWS_ENDPOINT_URL_S3", "localhost:9000"}}), nullptr);
  REQUIRE(r.has_error());
  CHECK(r.error().diag.message == "AWS_ENDPOINT_URL_S3 'localhost:9000': expected scheme://host[:port][/path]");
}

TEST_CASE("region cache: remembers, refreshes, evicts the least recently used") {
  bucket_region_cache c(2);
  CHECK(c.remember("a", "eu-west-1"));
  CHECK(c.remember("b", "us-west-2"));
  CHECK(c.lookup("a") == "eu-west-1");  // a is now the most recent
  CHECK(c.remember("c", "ap-south-1"));  // evicts b
  CHECK_FALSE(c.lookup("b"));
  CHECK(c.lookup("a") == "eu-west-1");
  CHECK(c.lookup("c") == "ap-south-1");
  CHECK(c.size() == 2);
  CHECK(c.remember("a", "eu-central-1"));
  CHECK(c.lookup("a") == "eu-central-1");
  c.forget("a");
  CHECK_FALSE(c.lookup("a"));
  CHECK(c.size() == 1);
  c.forget("c");
  CHECK(c.size() == 0);
  CHECK_FALSE(c.lookup("c"));  // empty again: the lock-free answer
  CHECK(c.remember("d", "eu-west-2"));
  CHECK(c.lookup("d") == "eu-west-2");  // and filled again: found
  CHECK(bucket_region_cache(0).capacity() == 1);
}

TEST_CASE("region cache: a server-supplied region that could steer the host is not recorded") {
  bucket_region_cache c;
  std::vector<std::string> bad = {"", "evil.example.com", "eu-west-1/x", "a b", "eu-west-1\r\nX: y", std::string(64, 'a')};
  for (auto const& r : bad) CHECK_FALSE_MESSAGE(c.remember("b", r), r);
  CHECK(c.size() == 0);
  CHECK_FALSE(c.remember("", "eu-west-1"));
}

TEST_CASE("region cache: safe from several threads") {
  bucket_region_cache c(64);
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t)
    ts.emplace_back([&c, t] {
      for (int i = 0; i < 2000; ++i) {
        std::string b = "b" + std::to_string((i * 7 + t) % 100);
        c.remember(b, "eu-west-1");
        (void)c.lookup(b);
        if (i % 13 == 0) c.forget(b);
      }
    });
  for (auto& th : ts) th.join();
  CHECK(c.size() <= 64);
}

}  // namespace s3_addressing_test
