// The pure parts of the http layer: fields, URLs, proxy selection, fallback
// classification.
#include <floe/http/fields.hpp>
#include <floe/http/message.hpp>
#include <floe/http/proxy.hpp>
#include <floe/http/url.hpp>

#include <doctest/doctest.h>

#include <string>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace http_pure_test {

using namespace floe::http;

TEST_CASE("fields: set replaces case-insensitively, add appends, erase removes, wire is the serialised form") {
  fields f;
  f.set("Host", "a");
  f.add("X-Amz-Meta-A", "1");
  f.add("x-amz-meta-a", "2");
  CHECK(f.size() == 3);
  CHECK(f.get("x-amz-meta-A") == "1");
  f.set("X-AMZ-META-A", "3");
  CHECK(f.size() == 2);
  CHECK(f.get("x-amz-meta-a") == "3");
  CHECK(f.wire() == "Host: a\r\nX-AMZ-META-A: 3\r\n");
  CHECK(f.erase("host") == 1);
  CHECK(f.wire() == "X-AMZ-META-A: 3\r\n");
  CHECK(f[0].name == "X-AMZ-META-A");
  CHECK_FALSE(f.contains("Host"));
  CHECK(f.get("Host").empty());
  f.clear();
  CHECK(f.empty());
}

TEST_CASE("fields refuse header injection") {
  fields f;
  f.set("X-Test", "ok\r\nEvil: yes");
  CHECK_FALSE(f.valid());
  CHECK(f.empty());
  fields g;
  g.add("Bad Name", "v");
  CHECK_FALSE(g.valid());
  g.clear();
  CHECK(g.valid());
}

TEST_CASE("fields: every byte a name or a value may not hold is refused, wherever it sits; the rest is kept as given") {
  for (int b = 0; b < 256; ++b) {
    char const c = static_cast<char>(b);
    bool const name_ok = b > 0x20 && b < 0x7f && c != ':';
    bool const value_ok = c != '\r' && c != '\n' && c != '\0';
    for (std::size_t at : {std::size_t{0}, std::size_t{7}, std::size_t{40}}) {
      std::string name(41, 'n'), value(41, 'v');
      name[at] = c;
      value[at] = c;
      fields f;
      f.add(name, "v");
      CHECK_MESSAGE(f.valid() == name_ok, "name byte " << b << " at " << at);
      CHECK(f.size() == (name_ok ? 1u : 0u));
      fields g;
      g.add("X-Value", value);
      CHECK_MESSAGE(g.valid() == value_ok, "value byte " << b << " at " << at);
      if (value_ok) CHECK(g.get("x-value") == value);
    }
  }
  fields f;
  f.add("X-Empty", "");
  f.add("X-Tab", "a\tb");
  CHECK(f.valid());
  CHECK(f.wire() == "X-Empty: \r\nX-Tab: a\tb\r\n");
  CHECK(f.get("x-empty").empty());
  fields e;
  e.add("", "v");
  CHECK_FALSE(e.valid());
}

TEST_CASE("parse_url: schemes, ports, IPv6, userinfo, targets") {
  auto u = parse_url("https://s3.amazonaws.com");
  REQUIRE(u.has_value());
  CHECK(u->ep.tls);
  CHECK(u->ep.host == "s3.amazonaws.com");
  CHECK(u->ep.port == 443);
  CHECK(u->target == "/");
  u = parse_url("HTTP://User:P%40ss@Proxy.Example:3128/a/b?x=1#frag");
  REQUIRE(u.has_value());
  CHECK_FALSE(u->ep.tls);
  CHECK(u->ep.host == "proxy.example");
  CHECK(u->ep.port == 3128);
  CHECK(u->userinfo == "User:P%40ss");
  CHECK(u->target == "/a/b?x=1");
  u = parse_url("http://[::1]:9000?q");
  REQUIRE(u.has_value());
  CHECK(u->ep.host == "::1");
  CHECK(u->ep.port == 9000);
  CHECK(u->target == "/?q");
  CHECK(u->ep.host_header() == "[::1]:9000");
  CHECK(endpoint{true, "h", 443}.host_header() == "h");
  CHECK(endpoint{false, "h", 8080}.host_header() == "h:8080");
  CHECK_FALSE(parse_url("ftp://x").has_value());
  CHECK_FALSE(parse_url("http://").has_value());
  CHECK_FALSE(parse_url("http://h:0").has_value());
  CHECK_FALSE(parse_url("http://h:65536").has_value());
  CHECK_FALSE(parse_url("http://h:12a").has_value());
  CHECK_FALSE(parse_url("http://h /x").has_value());
  CHECK_FALSE(parse_url("http://[zz]:1/").has_value());
  CHECK(parse_url("nope").error().code == floe::errc::invalid_argument);
}

TEST_CASE("NO_PROXY: exact hosts, domain suffixes, ports, IPs and *") {
  CHECK(no_proxy_matches("example.com", "example.com", 443));
  CHECK(no_proxy_matches("example.com", "s3.example.com", 443));
  CHECK(no_proxy_matches(".example.com", "s3.EXAMPLE.com", 443));
  CHECK_FALSE(no_proxy_matches("example.com", "badexample.com", 443));
  CHECK(no_proxy_matches(" foo , 127.0.0.1 ", "127.0.0.1", 80));
  CHECK(no_proxy_matches("minio:9000", "minio", 9000));
  CHECK_FALSE(no_proxy_matches("minio:9000", "minio", 9001));
  CHECK(no_proxy_matches("[::1]:80,::2", "::1", 80));
  CHECK(no_proxy_matches("::2", "::2", 80));
  CHECK(no_proxy_matches("*", "anything", 1));
  CHECK_FALSE(no_proxy_matches("", "anything", 1));
}

TEST_CASE("select_proxy picks the scheme's proxy unless NO_PROXY exempts the host") {
  proxy_config cfg;
  cfg.https_proxy = "http://u:p@proxy:3128";
  cfg.http_proxy = "proxy2:8080";
  cfg.no_proxy = ".internal";
  auto p = select_proxy(cfg, endpoint{true, "s3.amazonaws.com", 443});
  REQUIRE(p.has_value());
  REQUIRE(p->has_value());
  CHECK((*p)->ep.host == "proxy");
  CHECK((*p)->ep.port == 3128);
  CHECK((*p)->userinfo == "u:p");
  p = select_proxy(cfg, endpoint{false, "minio", 9000});
  REQUIRE(p.has_value());
  REQUIRE(p->has_value());
  CHECK((*p)->ep.host == "proxy2");
  CHECK((*p)->ep.port == 8080);
  p = select_proxy(cfg, endpoint{true, "s3.internal", 443});
  REQUIRE(p.has_value());
  CHECK_FALSE(p->has_value());
  cfg.https_proxy = "https://tls-proxy:443";
  CHECK_FALSE(select_proxy(cfg, endpoint{true, "s3.amazonaws.com", 443}).has_value());
  CHECK_FALSE(select_proxy(proxy_config{}, endpoint{true, "x", 443})->has_value());
}

TEST_CASE("proxy_authorization is Basic over the percent-decoded userinfo") {
  CHECK(proxy_authorization("") == "");
  CHECK(proxy_authorization("Aladdin:open%20sesame") == "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==");
  CHECK(proxy_authorization("a:b") == "Basic YTpi");
  CHECK(proxy_authorization("ab:c") == "Basic YWI6Yw==");
}

}  // namespace http_pure_test
