// parse_reply_head: a reply head from bytes in memory — the framing it
// declares, its bounds, and what floe refuses. No socket.
#include <floe/http/reply_reader.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <string>
#include <string_view>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace http_reply_head_test {

using namespace floe::http;
using floe::errc;

namespace {

head_parse parse(std::string_view bytes, reply_head& h, reply_head_params p = {}) {
  return parse_reply_head(bytes, h, p);
}

// Refused, with `code`, and the reason containing `words`.
void check_refused(std::string_view bytes, errc code, std::string_view words, reply_head_params p = {}) {
  reply_head h;
  auto const r = parse(bytes, h, p);
  INFO("bytes: ", std::string(bytes));
  REQUIRE(r.state == head_state::refused);
  CHECK(r.err.code == code);
  CHECK_MESSAGE(r.err.diag.message.find(words) != std::string::npos, r.err.diag.message);
}

}  // namespace

TEST_CASE("reply head: each framing, the head's size, keep-alive") {
  reply_head h;
  SUBCASE("Content-Length") {
    std::string const head = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nETag: \"e\"\r\n\r\n";
    auto const r = parse(head + "hello", h);
    REQUIRE(r.state == head_state::complete);
    CHECK_FALSE(r.err.code);
    CHECK(h.status == 200);
    CHECK(h.framing == reply_framing::length);
    CHECK(h.content_length == 5);
    CHECK(h.size == head.size());
    CHECK(h.keep_alive);
    CHECK(h.headers.size() == 2);
    CHECK(h.headers.get("etag") == "\"e\"");
  }
  SUBCASE("chunked") {
    auto const r = parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", h);
    REQUIRE(r.state == head_state::complete);
    CHECK(h.framing == reply_framing::chunked);
    CHECK(h.keep_alive);
  }
  SUBCASE("chunked last among transfer codings") {
    REQUIRE(parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", h).state == head_state::complete);
    CHECK(h.framing == reply_framing::chunked);
  }
  SUBCASE("neither: delimited by the close, so the connection is not kept") {
    REQUIRE(parse("HTTP/1.1 200 OK\r\nServer: x\r\n\r\nbody until close", h).state == head_state::complete);
    CHECK(h.framing == reply_framing::until_close);
    CHECK_FALSE(h.keep_alive);
  }
  SUBCASE("Content-Length: 0 has no body") {
    REQUIRE(parse("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", h).state == head_state::complete);
    CHECK(h.framing == reply_framing::none);
    CHECK(h.keep_alive);
  }
  SUBCASE("Connection: close") {
    REQUIRE(parse("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 1\r\n\r\nx", h).state ==
            head_state::complete);
    CHECK(h.framing == reply_framing::length);
    CHECK_FALSE(h.keep_alive);
  }
  SUBCASE("HTTP/1.0 keeps the connection only when asked") {
    REQUIRE(parse("HTTP/1.0 200 OK\r\nContent-Length: 1\r\n\r\nx", h).state == head_state::complete);
    CHECK_FALSE(h.keep_alive);
    REQUIRE(parse("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 1\r\n\r\nx", h).state ==
            head_state::complete);
    CHECK(h.keep_alive);
  }
  SUBCASE("an empty reason phrase") {
    REQUIRE(parse("HTTP/1.1 503 \r\nContent-Length: 0\r\n\r\n", h).state == head_state::complete);
    CHECK(h.status == 503);
  }
}

TEST_CASE("reply head: no body for 1xx, 204, 304 and a reply to HEAD, whatever they declare") {
  reply_head h;
  for (std::string_view s : {"HTTP/1.1 100 Continue\r\n\r\n", "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n",
                             "HTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\n",
                             "HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\nETag: \"e\"\r\n\r\n"}) {
    INFO(std::string(s));
    REQUIRE(parse(s, h).state == head_state::complete);
    CHECK(h.framing == reply_framing::none);
    CHECK(h.size == s.size());
  }
  // A 1xx head ends where the next head starts.
  std::string const two = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
  REQUIRE(parse(two, h).state == head_state::complete);
  CHECK(h.status == 100);
  REQUIRE(parse(std::string_view(two).substr(h.size), h).state == head_state::complete);
  CHECK(h.status == 200);
  CHECK(h.content_length == 2);

  reply_head_params head;
  head.head_request = true;
  REQUIRE(parse("HTTP/1.1 200 OK\r\nContent-Length: 1234\r\n\r\n", h, head).state == head_state::complete);
  CHECK(h.framing == reply_framing::none);
  CHECK(h.content_length == 1234);  // the object's size, as HEAD reports it
  CHECK(h.keep_alive);
}

TEST_CASE("reply head: a head cut at every byte needs more; whole, it is complete") {
  std::string const head =
      "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 0-1/10\r\nX-A: one\r\n two\r\nContent-Length: 2\r\n\r\n";
  reply_head h;
  for (std::size_t k = 0; k < head.size(); ++k) {
    auto const r = parse(std::string_view(head).substr(0, k), h);
    INFO("cut at ", k);
    CHECK(r.state == head_state::need_more);
    CHECK_FALSE(r.err.code);
  }
  REQUIRE(parse(head, h).state == head_state::complete);
  CHECK(h.status == 206);
  CHECK(h.size == head.size());
  CHECK(h.headers.get("X-A") == "one two");
}

TEST_CASE("reply head: a head over header_limit is reply_too_large, complete or not") {
  reply_head_params p;
  p.header_limit = 128;
  std::string const big = "HTTP/1.1 200 OK\r\nX-Filler: " + std::string(200, 'f') + "\r\nContent-Length: 0\r\n\r\n";
  check_refused(big, errc::reply_too_large, "client_config::header_limit (128 bytes)", p);
  // Never complete within the limit: refused rather than waiting for more.
  check_refused(big.substr(0, 150), errc::reply_too_large, "header_limit", p);
  check_refused("HTTP/1.1 200 " + std::string(150, 'r'), errc::reply_too_large, "header_limit", p);
  reply_head h;
  CHECK(parse(big.substr(0, 100), h, p).state == head_state::need_more);
}

TEST_CASE("reply head: the number of fields is bounded by header_limit") {
  // The shortest field line is 4 bytes ("a:\r\n"), so 64 KiB holds at most
  // ~16 Ki fields; one byte more than the limit allows is refused.
  auto head_of = [](std::size_t fields) {
    std::string s = "HTTP/1.1 200 OK\r\n";
    for (std::size_t i = 0; i < fields; ++i) s += "a:\r\n";
    return s + "Content-Length: 0\r\n\r\n";
  };
  reply_head h;
  auto const many = head_of(10'000);
  REQUIRE(parse(many, h).state == head_state::complete);
  CHECK(h.headers.size() == 10'001);
  check_refused(head_of(20'000), errc::reply_too_large, "header_limit");
}

TEST_CASE("reply head: bad status lines are malformed replies") {
  for (std::string_view s : {
           "HTTP/1.1 2000 OK\r\n\r\n",  // four digits
           "HTTP/1.1 20 OK\r\n\r\n",    // two
           "HTTP/1.1 2x0 OK\r\n\r\n",
           "HTTP/1.1 200\r\n\r\n",      // no space after the status
           "HTTP/2.0 200 OK\r\n\r\n",  // not HTTP/1.x
           "HTTP/0.9 200 OK\r\n\r\n",
           "http/1.1 200 OK\r\n\r\n",
           "ICY 200 OK\r\n\r\n",
           "HTTP/1.1  200 OK\r\n\r\n",
           "\r\nHTTP/1.1 200 OK\r\n\r\n",
           "HTTP/1.1 200 OK\nContent-Length: 0\n\n",  // bare LF line ends
           "HTTP/1.1 200 O\x01K\r\n\r\n",            // a control byte in the reason
       }) {
    check_refused(s, errc::malformed_reply, "malformed reply");
  }
  // 0 means "no reply" to the client, and 0xx has no class.
  check_refused("HTTP/1.1 000 Zero\r\n\r\n", errc::malformed_reply, "status code below 100");
  check_refused("HTTP/1.1 099 Low\r\n\r\n", errc::malformed_reply, "status code below 100");
}

TEST_CASE("reply head: obs-fold is read as one space; CR, LF or NUL cannot inject a field") {
  reply_head h;
  REQUIRE(parse("HTTP/1.1 200 OK\r\nX-A: one\r\n\t two\r\n  three\r\nContent-Length: 0\r\n\r\n", h).state ==
          head_state::complete);
  CHECK(h.headers.get("X-A") == "one two three");
  CHECK(h.headers.size() == 2);
  for (std::string_view s : {
           std::string_view("HTTP/1.1 200 OK\r\nX-A: a\rInjected: b\r\n\r\n"),  // lone CR
           std::string_view("HTTP/1.1 200 OK\r\nX-A: a\nInjected: b\r\n\r\n"),  // bare LF
           std::string_view("HTTP/1.1 200 OK\r\nX-A: a\0b\r\n\r\n", 29),         // NUL
           std::string_view("HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n"),
           std::string_view("HTTP/1.1 200 OK\r\n: no name\r\n\r\n"),
           std::string_view("HTTP/1.1 200 OK\r\n folded-first: x\r\n\r\n"),
           std::string_view("HTTP/1.1 200 OK\r\nX-A x\r\n\r\n"),  // no colon
       }) {
    check_refused(s, errc::malformed_reply, "malformed reply");
  }
}

TEST_CASE("reply head: Content-Length repeated with the same value is one; contradictions are refused") {
  reply_head h;
  REQUIRE(parse("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n", h).state ==
          head_state::complete);
  CHECK(h.content_length == 5);
  REQUIRE(parse("HTTP/1.1 200 OK\r\nContent-Length: 5, 5\r\n\r\n", h).state == head_state::complete);
  CHECK(h.content_length == 5);
  check_refused("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n", errc::malformed_reply,
                "Content-Length");
  check_refused("HTTP/1.1 200 OK\r\nContent-Length: 5, 6\r\n\r\n", errc::malformed_reply, "Content-Length");
  for (std::string_view v : {"-1", "abc", "5x", "", "0x10", "99999999999999999999999"})
    check_refused("HTTP/1.1 200 OK\r\nContent-Length: " + std::string(v) + "\r\n\r\n", errc::malformed_reply,
                  "Content-Length");
  // Both framings at once: a request-smuggling shape, in either order.
  check_refused("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n",
                errc::malformed_reply, "Transfer-Encoding");
  check_refused("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n",
                errc::malformed_reply, "Content-Length");
  check_refused("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
                errc::malformed_reply, "Transfer-Encoding");
}

TEST_CASE("reply head: arbitrary bytes never crash, throw or read past the end") {
  // Mutations of a valid head (bytes replaced, cut, duplicated) and random
  // bytes: every answer is one of the three states, and a complete head
  // never claims more bytes than it was given.
  std::string const seed =
      "HTTP/1.1 200 OK\r\nContent-Length: 12\r\nTransfer-Encoding: chunked\r\nX-A: b\r\n c\r\n\r\nbody";
  std::mt19937 rng(12345);
  reply_head h;
  for (int i = 0; i < 20'000; ++i) {
    std::string s = seed;
    int const edits = static_cast<int>(rng() % 6);
    for (int e = 0; e < edits && !s.empty(); ++e) {
      auto const at = rng() % s.size();
      switch (rng() % 4) {
        case 0: s[at] = static_cast<char>(rng() % 256); break;
        case 1: s.erase(at, rng() % 8); break;
        case 2: s.insert(at, s.substr(at, rng() % 16)); break;
        case 3: s.resize(at); break;
      }
    }
    if (i % 10 == 0) {
      s.resize(rng() % 200);
      for (auto& c : s) c = static_cast<char>(rng() % 256);
    }
    reply_head_params p;
    p.header_limit = 16 + static_cast<std::uint32_t>(rng() % 200);
    p.head_request = rng() % 2 == 0;
    auto const r = parse_reply_head(s, h, p);
    CHECK((r.state == head_state::complete || r.state == head_state::need_more || r.state == head_state::refused));
    if (r.state == head_state::complete) CHECK(h.size <= s.size());
    if (r.state == head_state::refused) CHECK(r.err.code);
  }
}

}  // namespace http_reply_head_test
