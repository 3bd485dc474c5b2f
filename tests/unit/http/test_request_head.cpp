// write_request_head: the request head as bytes, and what it refuses to
// write. No socket.
#include <floe/http/request_head.hpp>

#include <doctest/doctest.h>

#include <string>
#include <string_view>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace http_request_head_test {

using namespace floe::http;

namespace {

request make(std::string method, std::string target) {
  request r;
  r.method = std::move(method);
  r.target = std::move(target);
  return r;
}

std::string head_of(endpoint const& ep, request const& req, request_head_params const& p = {}) {
  std::string out;
  char const* why = write_request_head(out, ep, req, p);
  REQUIRE_MESSAGE(why == nullptr, why);
  return out;
}

}  // namespace

TEST_CASE("request head: request line, Host unless given, the caller's fields in order") {
  endpoint const https{true, "s3.example.com", 443};
  auto req = make("GET", "/b/k?versionId=1");
  req.headers.set("X-Amz-Date", "20250101T000000Z");
  req.headers.add("X-Amz-Meta-A", "1");
  CHECK(head_of(https, req) ==
        "GET /b/k?versionId=1 HTTP/1.1\r\nHost: s3.example.com\r\nX-Amz-Date: 20250101T000000Z\r\n"
        "X-Amz-Meta-A: 1\r\n\r\n");
  CHECK(head_of(endpoint{false, "127.0.0.1", 9000}, make("GET", "/")) ==
        "GET / HTTP/1.1\r\nHost: 127.0.0.1:9000\r\n\r\n");
  CHECK(head_of(endpoint{false, "::1", 80}, make("GET", "/")) == "GET / HTTP/1.1\r\nHost: [::1]\r\n\r\n");
  CHECK(head_of(endpoint{true, "::1", 9443}, make("GET", "/")) == "GET / HTTP/1.1\r\nHost: [::1]:9443\r\n\r\n");
  auto hosted = make("GET", "/k");
  hosted.headers.set("Host", "bucket.s3.example.com");
  CHECK(head_of(https, hosted) == "GET /k HTTP/1.1\r\nHost: bucket.s3.example.com\r\n\r\n");
}

TEST_CASE("request head: Content-Length with a body or for PUT, POST and PATCH; Expect when asked") {
  endpoint const ep{false, "h", 80};
  CHECK(head_of(ep, make("PUT", "/k")) == "PUT /k HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n");
  CHECK(head_of(ep, make("POST", "/")) == "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n");
  CHECK(head_of(ep, make("DELETE", "/k")) == "DELETE /k HTTP/1.1\r\nHost: h\r\n\r\n");
  auto put = make("PUT", "/k");
  put.body = body_source::memory("hello");
  CHECK(head_of(ep, put) == "PUT /k HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\n");
  put.body = body_source::stream([](std::span<char>, boost::system::error_code&) { return std::size_t{0}; },
                                 5'000'000'000);
  request_head_params p;
  p.expect_continue = true;
  CHECK(head_of(ep, put, p) ==
        "PUT /k HTTP/1.1\r\nHost: h\r\nContent-Length: 5000000000\r\nExpect: 100-continue\r\n\r\n");
}

TEST_CASE("request head: the absolute form through a proxy, with its credentials") {
  endpoint const ep{false, "minio.local", 9000};
  request_head_params p;
  p.absolute_form = true;
  CHECK(head_of(ep, make("GET", "/b/k"), p) == "GET http://minio.local:9000/b/k HTTP/1.1\r\nHost: minio.local:9000\r\n\r\n");
  p.proxy_authorization = "Basic dTpw";
  auto hosted = make("GET", "/k");
  hosted.headers.set("Host", "b.minio.local:9000");
  CHECK(head_of(ep, hosted, p) ==
        "GET http://b.minio.local:9000/k HTTP/1.1\r\nHost: b.minio.local:9000\r\nProxy-Authorization: Basic dTpw\r\n\r\n");
  // Proxy credentials only ever go to the proxy, in the absolute form.
  p.absolute_form = false;
  CHECK(head_of(ep, hosted, p).find("Proxy-Authorization") == std::string::npos);
}

TEST_CASE("request head: the buffer is replaced, keeping its memory") {
  endpoint const ep{false, "h", 80};
  std::string out(500, 'x');
  out.clear();
  auto const cap = out.capacity();
  auto const* data = out.data();
  REQUIRE(write_request_head(out, ep, make("GET", "/a")) == nullptr);
  REQUIRE(write_request_head(out, ep, make("GET", "/b")) == nullptr);
  CHECK(out == "GET /b HTTP/1.1\r\nHost: h\r\n\r\n");
  CHECK(out.capacity() == cap);
  CHECK(out.data() == data);
}

TEST_CASE("request head: CR, LF or NUL in a field, a bad method or target is refused and nothing written") {
  endpoint const ep{false, "h", 80};
  std::string const before = "previous head";
  auto refused = [&](request const& req, std::string_view words) {
    std::string out = before;
    char const* why = write_request_head(out, ep, req);
    REQUIRE(why != nullptr);
    CHECK_MESSAGE(std::string_view(why).find(words) != std::string_view::npos, why);
    CHECK(out == before);
    CHECK(request_head_refusal(req) == std::string_view(why));
  };
  for (std::string_view value : {std::string_view("a\r\nInjected: yes"), std::string_view("a\nb"), std::string_view("a\rb"),
                                 std::string_view("a\0b", 3)}) {
    auto req = make("GET", "/");
    req.headers.set("X-Amz-Meta-A", value);
    refused(req, "CR, LF or NUL");
  }
  auto bad_name = make("GET", "/");
  bad_name.headers.add("Bad Name", "v");
  refused(bad_name, "CR, LF or NUL");
  for (std::string_view target : {std::string_view("/a b"), std::string_view("/a\r\nHost: evil"), std::string_view("/a\nb"),
                                  std::string_view("/a\0b", 4), std::string_view("/a\tb"), std::string_view("/\x7f")})
    refused(make("GET", std::string(target)), "request target");
  refused(make("GET", ""), "target is empty");
  for (std::string_view method : {"GE T", "GET\r\n", "G:T", "G\xc3\xa9T"}) refused(make(std::string(method), "/"), "method");
  refused(make("", "/"), "method is empty");
  // Bytes above ASCII in a target are the caller's encoding, not an injection.
  CHECK(request_head_refusal(make("GET", "/caf\xc3\xa9")) == nullptr);
  CHECK(request_head_refusal(make("M-SEARCH", "*")) == nullptr);
}

}  // namespace http_request_head_test
