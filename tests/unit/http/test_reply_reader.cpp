// detail::reply_reader: whole replies, head and body, from bytes fed in as
// a connection would read them — in any pieces, with the end of the stream
// when the peer closes. No socket.
#include <floe/http/reply_reader.hpp>

#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace http_reply_reader_test {

using namespace floe::http;
using floe::errc;
using detail::reply_limits;
using detail::reply_reader;
using state = reply_reader::state;

namespace {

request get(std::string method = "GET") {
  request r;
  r.method = std::move(method);
  return r;
}

// Feeds `wire` cut into pieces at `cuts`, as the connection's read loop
// does: bytes the reader leaves stay buffered and more are appended. Returns
// what is left buffered once the reader stops asking for more.
std::string feed_pieces(reply_reader& r, std::string_view wire, std::vector<std::size_t> const& cuts) {
  std::string buffered;
  std::size_t from = 0;
  auto feed = [&](std::size_t to) {
    buffered.append(wire.substr(from, to - from));
    from = to;
    buffered.erase(0, r.feed(buffered));
  };
  for (auto c : cuts) {
    if (r.status() != state::reading) break;
    feed(c);
  }
  if (r.status() == state::reading) feed(wire.size());
  buffered.append(wire.substr(from));
  return buffered;
}

struct read_out {
  state st;
  std::string left;
};

read_out read_whole(response& res, request const& req, std::string_view wire, reply_limits lim = {},
                    bool interim = false) {
  reply_reader r(res, req, lim, interim);
  auto left = feed_pieces(r, wire, {});
  return {r.status(), left};
}

}  // namespace

TEST_CASE("reply reader: a Content-Length body, a chunked one and one delimited by the close") {
  auto req = get();
  response res;
  SUBCASE("Content-Length, with the next reply's bytes left for it") {
    auto out = read_whole(res, req, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhelloHTTP/1.1 204");
    CHECK(out.st == state::done);
    CHECK(out.left == "HTTP/1.1 204");
    CHECK(res.status == 200);
    CHECK(res.body == "hello");
    CHECK(res.body_bytes == 5);
    CHECK(res.keep_alive);
  }
  SUBCASE("chunked, with chunk extensions and trailer fields") {
    auto out = read_whole(res, req,
                          "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                          "5;name=value;quoted=\"a b\"\r\nhello\r\n6 ; ext\r\n world\r\n0\r\nX-Checksum: abc\r\n\r\n");
    CHECK(out.st == state::done);
    CHECK(out.left.empty());
    CHECK(res.body == "hello world");
    CHECK(res.keep_alive);
    CHECK(res.headers.get("X-Checksum") == "abc");  // trailer fields join the headers
  }
  SUBCASE("until the close") {
    reply_reader r(res, req, {}, false);
    std::string_view const wire = "HTTP/1.1 200 OK\r\n\r\nall of it";
    CHECK(r.feed(wire) == wire.size());
    CHECK(r.status() == state::reading);
    CHECK(r.feed_eof());
    CHECK(r.status() == state::done);
    CHECK(res.body == "all of it");
    CHECK_FALSE(res.keep_alive);
  }
  SUBCASE("the end of the stream before a declared length is not the end of the reply") {
    reply_reader r(res, req, {}, false);
    r.feed("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc");
    CHECK_FALSE(r.feed_eof());
    CHECK(r.status() == state::reading);
  }
  SUBCASE("nor in the middle of a head") {
    reply_reader r(res, req, {}, false);
    CHECK(r.feed("HTTP/1.1 200 OK\r\nContent-") == 0);  // nothing of a head is used before it is whole
    CHECK(r.status() == state::reading);
    CHECK_FALSE(r.feed_eof());
    CHECK(r.status() == state::reading);
  }
  SUBCASE("a bad chunk is a malformed reply") {
    auto out = read_whole(res, req, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n");
    CHECK(out.st == state::failed);
  }
}

TEST_CASE("reply reader: a reply cut at every byte, or fed byte by byte, reads the same") {
  std::vector<std::string> const wires = {
      "HTTP/1.1 200 OK\r\nContent-Length: 11\r\nX-A: one\r\n two\r\n\r\nhello world",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\nhello\r\n6\r\n world\r\n0\r\nT: t\r\n\r\n",
      "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\nhello world",
  };
  for (auto const& wire : wires) {
    for (std::size_t k = 1; k < wire.size(); ++k) {
      INFO("reply: ", wire, " cut at ", k);
      auto req = get();
      response res;
      reply_reader r(res, req, {}, false);
      auto const left = feed_pieces(r, wire, {k});
      REQUIRE(r.status() == state::done);
      CHECK(left.empty());
      CHECK(res.status == 200);
      CHECK(res.body == "hello world");
      CHECK(res.keep_alive);
    }
    auto req = get();
    response res;
    reply_reader r(res, req, {}, false);
    std::vector<std::size_t> every;
    for (std::size_t k = 1; k < wire.size(); ++k) every.push_back(k);
    CHECK(feed_pieces(r, wire, every).empty());
    REQUIRE(r.status() == state::done);
    CHECK(res.body == "hello world");
  }
}

TEST_CASE("reply reader: a malformed head is refused the same however it is cut") {
  // Found by fuzz_http_reply_head: Beast judges the bytes it is given at
  // once, but after part of a head it waits for the empty line. A head with
  // bare LF line ends has none, so fed whole it was refused ("bad reason")
  // and fed in pieces it waited for more until the peer closed.
  for (std::string_view wire : {"HTTP/1.1 200 OK\nContent-Length: 0\n\n",
                                "HTTP/1.1 200 OK\r\nX-A: a\rInjected: b\r\n\r\n",
                                "HTTP/1.1 200 OK\r\nX-A: a\nInjected: b\r\n\r\n"}) {
    auto req = get();
    response whole_res;
    auto const whole = read_whole(whole_res, req, wire);
    REQUIRE(whole.st == state::failed);
    for (std::size_t k = 1; k < wire.size(); ++k) {
      INFO("reply: ", wire, " cut at ", k);
      response res;
      reply_reader r(res, req, {}, false);
      feed_pieces(r, wire, {k});
      CHECK(r.status() == whole.st);
    }
    response res;
    reply_reader r(res, req, {}, false);
    std::vector<std::size_t> every;
    for (std::size_t k = 1; k < wire.size(); ++k) every.push_back(k);
    feed_pieces(r, wire, every);
    CHECK(r.status() == whole.st);
  }
  // A head without its empty line is not judged: it waits (the idle timeout
  // and header_limit bound it).
  auto req = get();
  response res;
  CHECK(read_whole(res, req, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n").st == state::reading);
  reply_limits small;
  small.header_limit = 64;
  reply_reader r(res, req, small, false);
  feed_pieces(r, "HTTP/1.1 200 OK\r\nX: " + std::string(80, 'x'), {10, 30, 50, 70});
  REQUIRE(r.status() == state::failed);
  CHECK(r.error() == errc::reply_too_large);
  // header_limit holds for the whole head, cut after its status line too
  // (Beast alone counts its limit afresh for the fields): 68 bytes.
  reply_reader cut(res, req, small, false);
  feed_pieces(cut, "HTTP/1.1 200 OK\r\nX: " + std::string(44, 'x') + "\r\n\r\n", {17});
  REQUIRE(cut.status() == state::failed);
  CHECK(cut.error() == errc::reply_too_large);
}

TEST_CASE("reply reader: a last chunk first, arriving in pieces") {
  // Found by fuzz_http_reply_head: Beast asserts that a last chunk it saw
  // without its end comes back with 5 bytes at least; a body that is only
  // "0\r\n\r\n", fed "0\r\n" then "\r", aborted a build with assertions.
  std::string const wire = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n";
  auto const body_at = wire.size() - 5;
  auto req = get();
  response res;
  reply_reader r(res, req, {}, false);
  CHECK(feed_pieces(r, wire, {body_at, body_at + 3, body_at + 4}).empty());
  REQUIRE(r.status() == state::done);
  CHECK(res.body.empty());
}

TEST_CASE("reply reader: a declared length is reserved only up to max_body_reserve") {
  // Found by fuzz_http_reply_head: the whole declared length was reserved
  // before a byte came — a lying server's 60 MiB within the default limit,
  // or std::length_error under an unbounded one.
  auto req = get();
  response res;
  reply_limits unbounded;
  unbounded.body_limit = UINT64_MAX;
  reply_reader r(res, req, unbounded, false);
  CHECK_NOTHROW(r.feed("HTTP/1.1 200 OK\r\nContent-Length: 18446744073709551615\r\n\r\nab"));
  CHECK(r.status() == state::reading);
  CHECK(res.body == "ab");
  CHECK(res.body.capacity() < 2 * detail::max_body_reserve);
}

TEST_CASE("reply reader: 1xx are skipped, except a 100 Continue that is awaited") {
  std::string const wire =
      "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 100 Continue\r\n\r\n"
      "HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok";
  SUBCASE("not awaited: the final reply, with none of the interim replies' fields") {
    auto req = get("PUT");
    response res;
    auto out = read_whole(res, req, wire);
    CHECK(out.st == state::done);
    CHECK(res.status == 201);
    CHECK(res.body == "ok");
    CHECK_FALSE(res.headers.contains("Link"));
  }
  SUBCASE("awaited: the reader stops after the 100, and the final reply is read next") {
    auto req = get("PUT");
    response res;
    reply_reader r(res, req, {}, true);
    auto const used = r.feed(wire);
    CHECK(r.status() == state::interim);
    CHECK(res.status == 100);
    auto const rest = std::string_view(wire).substr(used);
    CHECK(rest.starts_with("HTTP/1.1 201"));
    auto out = read_whole(res, req, rest);
    CHECK(out.st == state::done);
    CHECK(res.status == 201);
  }
  SUBCASE("awaited, but a final answer came instead") {
    auto req = get("PUT");
    response res;
    auto out = read_whole(res, req, "HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n", {}, true);
    CHECK(out.st == state::done);
    CHECK(res.status == 403);
  }
}

TEST_CASE("reply reader: no body after 204, 304 or a reply to HEAD, whatever Content-Length says") {
  for (std::string_view head : {"HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n",
                                "HTTP/1.1 304 Not Modified\r\nContent-Length: 5\r\n\r\n"}) {
    auto req = get();
    response res;
    auto out = read_whole(res, req, std::string(head) + "HTTP/1.1 200 OK");
    CHECK(out.st == state::done);
    CHECK(out.left == "HTTP/1.1 200 OK");
    CHECK(res.body.empty());
    CHECK(res.keep_alive);
  }
  auto req = get("HEAD");
  response res;
  auto out = read_whole(res, req, "HTTP/1.1 200 OK\r\nContent-Length: 1234\r\n\r\nHTTP/1.1 200 OK");
  CHECK(out.st == state::done);
  CHECK(out.left == "HTTP/1.1 200 OK");
  CHECK(res.headers.get("Content-Length") == "1234");
  CHECK(res.body.empty());
  CHECK(res.body_bytes == 0);
  CHECK(res.keep_alive);
}

TEST_CASE("reply reader: body limits by target, declared or found on the way") {
  reply_limits lim;
  lim.body_limit = 8;
  lim.error_body_limit = 4;
  SUBCASE("a 2xx body to memory over body_limit, declared: refused at its first byte") {
    auto req = get();
    response res;
    reply_reader r(res, req, lim, false);
    r.feed("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nx");
    CHECK(res.body.empty());
    REQUIRE(r.status() == state::failed);
    CHECK(r.error() == errc::reply_too_large);
    CHECK(r.why() == "the reply body exceeds client_config::body_limit (8 bytes)");
  }
  SUBCASE("an error body over error_body_limit, found chunk by chunk") {
    auto req = get();
    response res;
    reply_reader r(res, req, lim, false);
    r.feed("HTTP/1.1 500 Oops\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n3\r\ndef\r\n0\r\n\r\n");
    REQUIRE(r.status() == state::failed);
    CHECK(r.error() == errc::reply_too_large);
    CHECK(r.why() == "the error reply's body (status 500) exceeds client_config::error_body_limit (4 bytes)");
  }
  SUBCASE("a stream sink has no limit, and is known to have been written to") {
    auto req = get();
    std::string got;
    req.sink = body_sink::stream([&](std::string_view piece, boost::system::error_code&) { got += piece; });
    response res;
    reply_reader r(res, req, lim, false);
    CHECK_FALSE(r.sink_touched());
    r.feed("HTTP/1.1 200 OK\r\nContent-Length: 20\r\n\r\n01234567890123456789");
    CHECK(r.status() == state::done);
    CHECK(r.sink_touched());
    CHECK(got == "01234567890123456789");
    CHECK(res.body.empty());
    CHECK(res.body_bytes == 20);
  }
  SUBCASE("a stream sink's own error is reported as it is") {
    auto req = get();
    req.sink = body_sink::stream([](std::string_view, boost::system::error_code& ec) {
      ec = make_error_code(boost::system::errc::no_space_on_device);
    });
    response res;
    reply_reader r(res, req, lim, false);
    r.feed("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nab");
    REQUIRE(r.status() == state::failed);
    CHECK(r.error() == boost::system::errc::no_space_on_device);
    CHECK(r.why().empty());
  }
}

TEST_CASE("reply reader: a malformed head is refused saying why; an oversize one names header_limit") {
  auto req = get();
  response res;
  {
    reply_reader r(res, req, {}, false);
    r.feed("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n");
    REQUIRE(r.status() == state::failed);
    CHECK(r.error() == errc::malformed_reply);
    CHECK(r.why() == "malformed reply: multiple Content-Length");
  }
  {
    reply_limits lim;
    lim.header_limit = 64;
    reply_reader r(res, req, lim, false);
    r.feed("HTTP/1.1 200 OK\r\nX-Filler: " + std::string(100, 'f') + "\r\n\r\n");
    REQUIRE(r.status() == state::failed);
    CHECK(r.error() == errc::reply_too_large);
    CHECK(r.why() == "the reply head exceeds client_config::header_limit (64 bytes)");
  }
}

}  // namespace http_reply_reader_test
