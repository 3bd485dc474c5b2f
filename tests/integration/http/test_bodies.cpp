// Request bodies the client sends again: a restartable body
// (http/restartable_body.hpp) written into a connection the server had
// closed goes again on a new connection, read from its start by a reader of
// its own, and without Expect: 100-continue. And the other end of an
// attempt: a reply refused at its head (request::on_reply_head) is not read.
// Against an in-process loopback server (tests/support/scripted_server.hpp);
// needs no external server.
#include "http_support.hpp"
#include "scripted_server.hpp"

#include <floe/http/client.hpp>
#include <floe/http/restartable_body.hpp>

#include <boost/asio/io_context.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

// Its own namespace: it shares a build unit with other test files
// (tests/integration/meson.build).
namespace http_bodies_it {

using namespace floe::test::http_names;
using floe::test::scripted_connection;
using floe::test::scripted_server;

namespace {

// Connection 1 answers one request, then shuts the connection down. Later
// connections read each request whole and answer with its body's size and
// a digest of its bytes; a head with Expect: is counted.
scripted_server::script shut_after_one() {
  return [](scripted_connection& c) {
    for (;;) {
      auto head = c.read_head();
      if (head.empty()) return;
      if (head.find("\r\nExpect:") != std::string::npos || head.find("\r\nexpect:") != std::string::npos)
        c.count("expect");
      auto const body = c.read_exact(scripted_connection::content_length(head));
      std::size_t sum = 0;
      for (unsigned char ch : body) sum = sum * 31 + ch;
      if (!c.reply(200, std::to_string(body.size()) + " " + std::to_string(sum))) return;
      if (c.index() == 1) {
        c.close();
        c.count("closed");
        return;
      }
    }
  };
}

// The byte at `pos` of the test's body.
char byte_at(std::uint64_t pos) { return static_cast<char>('a' + (pos * 7) % 23); }

}  // namespace

TEST_CASE("a restartable body written into a closed connection goes again from its start, with a reader of its own") {
  scripted_server srv(shut_after_one());
  asio::io_context io;
  auto cfg = floe::test::http_test_config();
  cfg.io_chunk = 4096;  // many writes: the reset comes back between them
  client c(io.get_executor(), cfg);
  endpoint const ep{false, "127.0.0.1", srv.port()};
  response res;
  auto warm = floe::test::bare_request("GET", "/warm");
  auto e = floe::test::send(io, c, ep, warm, res);
  REQUIRE_MESSAGE(!e.code, e.what());
  for (int i = 0; i < 1000 && srv.counter("closed") == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  REQUIRE(srv.counter("closed") == 1);

  std::uint64_t const length = 1u << 20;
  auto starts = std::make_shared<int>(0);
  auto start = [starts, length]() -> body_source::read_fn {
    ++*starts;
    auto pos = std::make_shared<std::uint64_t>(0);
    return [pos, length](std::span<char> dst, boost::system::error_code&) -> std::size_t {
      auto const n = static_cast<std::size_t>(std::min<std::uint64_t>(dst.size(), length - *pos));
      for (std::size_t i = 0; i < n; ++i) dst[i] = byte_at(*pos + i);
      *pos += n;
      return n;
    };
  };
  auto put = floe::test::bare_request("PUT", "/restartable");
  put.body = floe::http::restartable_body(start, length);
  CHECK(floe::http::can_replay(put.body));
  CHECK_FALSE(put.body.replayable());  // a stream, as body_source sees it
  e = floe::test::send(io, c, ep, put, res);
  REQUIRE_MESSAGE(!e.code, e.what());
  std::size_t sum = 0;
  for (std::uint64_t p = 0; p < length; ++p) sum = sum * 31 + static_cast<unsigned char>(byte_at(p));
  CHECK(res.body == std::to_string(length) + " " + std::to_string(sum));
  CHECK(c.stats().stale_resends == 1);
  CHECK(*starts == 2);
  CHECK(srv.counter("expect") == 0);
}

TEST_CASE("a restartable body read as a plain stream reads once, from a reader started on the first read") {
  int starts = 0;
  auto b = floe::http::restartable_body(
      [&starts]() -> body_source::read_fn {
        ++starts;
        auto left = std::make_shared<int>(3);
        return [left](std::span<char> dst, boost::system::error_code&) -> std::size_t {
          if (*left == 0 || dst.empty()) return 0;
          --*left;
          dst[0] = 'x';
          return 1;
        };
      },
      3);
  CHECK(floe::http::restartable_of(b) != nullptr);
  CHECK(floe::http::restartable_of(body_source::stream([](std::span<char>, boost::system::error_code&) { return std::size_t{0}; }, 0)) == nullptr);
  CHECK(floe::http::restartable_of(body_source::memory("abc")) == nullptr);
  boost::system::error_code ec;
  char buf[8];
  std::string got;
  for (std::size_t n; (n = b.reader()(std::span<char>(buf, sizeof buf), ec)) > 0;) got.append(buf, n);
  CHECK(got == "xxx");
  CHECK(starts == 1);
}

TEST_CASE("a reply refused at its head (on_reply_head says no) ends the attempt cancelled, its connection closed") {
  std::string const body(100000, 'b');
  scripted_server srv([&body](scripted_connection& c) {
    while (!c.read_head().empty())
      if (!c.reply(200, body)) return;
  });
  asio::io_context io;
  auto cfg = floe::test::http_test_config();
  std::vector<unsigned> observed;
  cfg.observer = [&observed](floe::http::exchange_view const& v) { observed.push_back(v.status); };
  client c(io.get_executor(), cfg);
  endpoint const ep{false, "127.0.0.1", srv.port()};

  int heads = 0;
  auto refused = floe::test::bare_request("GET", "/refused");
  refused.on_reply_head = [&heads] {
    ++heads;
    return false;
  };
  response res;
  auto e = floe::test::send(io, c, ep, refused, res);
  CHECK(e.code == asio::error::operation_aborted);
  CHECK(heads == 1);
  CHECK(c.idle_connections(ep) == 0);  // its body unread: never pooled

  auto wanted = floe::test::bare_request("GET", "/wanted");
  wanted.on_reply_head = [&heads] {
    ++heads;
    return true;
  };
  e = floe::test::send(io, c, ep, wanted, res);
  REQUIRE_MESSAGE(!e.code, e.what());
  CHECK(heads == 2);
  CHECK(res.status == 200);
  CHECK(res.body == body);
  CHECK(c.stats().connections_opened == 2);
  CHECK(srv.connections() == 2);
  CHECK(observed == std::vector<unsigned>{0, 200});  // the refused one was observed with no reply
}

}  // namespace http_bodies_it
