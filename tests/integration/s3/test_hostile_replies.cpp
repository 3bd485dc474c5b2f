// s3::client against in-process loopback servers scripted to misbehave in
// one way each (tests/support/scripted_server.hpp): listings read a page at
// a time (list_pager) and pages that would never end; downloads whose
// replies do not add up to the object; a reply head trickled a byte at a
// time; how a transport failure names its resource.
#include "scripted_server.hpp"

#include <floe/credentials/provider.hpp>
#include <floe/s3/client.hpp>
#include <floe/s3/list_pager.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>

#include <doctest/doctest.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

// Its own namespace: it shares a build unit with other test files
// (tests/integration/meson.build).
namespace s3_hostile_replies_it {

namespace asio = boost::asio;
using namespace std::chrono_literals;
using floe::errc;
using floe::test::scripted_connection;
using floe::test::scripted_server;

namespace {

// The request target of a request head ("GET /b?x HTTP/1.1" -> "/b?x").
std::string target_of(std::string const& head) {
  auto const sp = head.find(' ');
  return head.substr(sp + 1, head.find(' ', sp + 1) - sp - 1);
}

// The value of query parameter `name` in a target, as sent (encoded).
std::string query_value(std::string const& target, std::string const& name) {
  auto const q = target.find('?');
  if (q == std::string::npos) return {};
  std::string const rest = "&" + target.substr(q + 1);
  auto const at = rest.find("&" + name + "=");
  if (at == std::string::npos) return {};
  auto const start = at + name.size() + 2;
  return rest.substr(start, rest.find('&', start) - start);
}

std::string page_xml(std::vector<std::string> const& keys, std::string const& next_token) {
  std::string x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><ListBucketResult><Name>b</Name>"
                  "<EncodingType>url</EncodingType><IsTruncated>";
  x += next_token.empty() ? "false" : "true";
  x += "</IsTruncated>";
  if (!next_token.empty()) x += "<NextContinuationToken>" + next_token + "</NextContinuationToken>";
  for (auto const& k : keys)
    x += "<Contents><Key>" + k + "</Key><Size>1</Size><ETag>&quot;e&quot;</ETag></Contents>";
  return x + "</ListBucketResult>";
}

// Serves requests on each connection with `answer(head, connection)`
// until the client closes.
template <class Answer>
scripted_server::script serve(Answer answer) {
  return [answer](scripted_connection& c) {
    for (;;) {
      auto head = c.read_head();
      if (head.empty()) return;
      c.read_exact(scripted_connection::content_length(head));
      c.count("requests");
      if (!answer(head, c)) return;
    }
  };
}

struct world {
  asio::io_context io;
  std::unique_ptr<floe::s3::client> s3;

  explicit world(std::uint16_t port, std::function<void(floe::s3::client_config&)> tweak = {}) {
    floe::s3::client_config cfg;
    cfg.addressing.endpoint_url = "http://127.0.0.1:" + std::to_string(port);
    cfg.addressing.region = "us-east-1";
    cfg.addressing.style = floe::s3::addressing_style::path;
    cfg.env = [](std::string_view n) -> std::optional<std::string> {
      if (n == "AWS_EC2_METADATA_DISABLED") return "true";
      return std::nullopt;
    };
    floe::credentials::credentials k;
    k.access_key_id = "AKIDSCRIPTED";
    k.secret_access_key = floe::credentials::secret_string("scripted-secret");
    cfg.credentials = std::make_shared<floe::credentials::static_provider>(k);
    cfg.http.random = [] { return 0.0; };  // no back-off waits
    if (tweak) tweak(cfg);
    auto c = floe::s3::client::create(io.get_executor(), cfg);
    REQUIRE(c.has_value());
    s3 = std::move(*c);
  }

  template <class F>
  auto run(F f) {
    auto fut = asio::co_spawn(io, f(), asio::use_future);
    io.restart();
    io.run();
    return fut.get();
  }
};

std::string temp_path(std::string const& name) {
  return (std::filesystem::temp_directory_path() / ("floe-hostile-" + std::to_string(::getpid()) + "-" + name))
      .string();
}

std::string read_file(std::string const& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("list_pager: a page per call, the next asked for only when called; done after the last") {
  scripted_server srv(serve([](std::string const& head, scripted_connection& c) {
    auto const token = query_value(target_of(head), "continuation-token");
    if (token.empty()) return c.reply(200, page_xml({"p/a", "p/b"}, "T2"));
    if (token == "T2") return c.reply(200, page_xml({"p/c"}, "T3"));
    return c.reply(200, page_xml({"p/d"}, ""));
  }));
  world w(srv.port());
  floe::s3::list_params p;
  p.prefix = "p/";
  floe::s3::list_pager pages(*w.s3, "b", p);
  CHECK_FALSE(pages.done());
  CHECK(srv.counter("requests") == 0);  // nothing sent before the first call

  std::vector<std::vector<std::string>> seen;
  std::vector<unsigned> requests_at;
  while (!pages.done()) {
    auto page = w.run([&]() -> asio::awaitable<floe::result<floe::s3::list_page>> {
      co_return co_await pages.async_next_page(asio::use_awaitable);
    });
    REQUIRE_MESSAGE(page.has_value(), page.error().what());
    requests_at.push_back(srv.counter("requests"));
    std::vector<std::string> keys;
    for (auto const& o : page->objects) keys.push_back(o.key);
    seen.push_back(keys);
  }
  CHECK(seen == std::vector<std::vector<std::string>>{{"p/a", "p/b"}, {"p/c"}, {"p/d"}});
  CHECK(requests_at == std::vector<unsigned>{1, 2, 3});  // one request per page, as asked
  CHECK(pages.pages() == 3);
  CHECK(pages.keys() == 4);
  // Asked again after the last page: an empty page, nothing sent.
  auto again = w.run([&]() -> asio::awaitable<floe::result<floe::s3::list_page>> {
    co_return co_await pages.async_next_page(asio::use_awaitable);
  });
  REQUIRE(again.has_value());
  CHECK(again->objects.empty());
  CHECK(srv.counter("requests") == 3);
}

TEST_CASE("list_pager and async_list_objects: tokens that come back (A, B, A) end the listing with an error") {
  scripted_server srv(serve([](std::string const& head, scripted_connection& c) {
    auto const token = query_value(target_of(head), "continuation-token");
    std::string const next = token == "A" ? "B" : "A";
    return c.reply(200, page_xml({"k-" + next}, next));
  }));
  world w(srv.port());
  floe::s3::list_pager pages(*w.s3, "b", floe::s3::list_params{});
  floe::result<floe::s3::list_page> last = floe::s3::list_page{};
  unsigned calls = 0;
  while (!pages.done() && calls < 10) {
    ++calls;
    last = w.run([&]() -> asio::awaitable<floe::result<floe::s3::list_page>> {
      co_return co_await pages.async_next_page(asio::use_awaitable);
    });
  }
  CHECK(calls == 3);
  REQUIRE_FALSE(last.has_value());
  CHECK(last.error().code == errc::malformed_reply);
  CHECK(last.error().diag.operation == "ListObjectsV2");
  CHECK(last.error().diag.resource == "b");
  CHECK(last.error().diag.message.find("continuation token seen before") != std::string::npos);

  auto whole = w.run([&]() -> asio::awaitable<floe::result<floe::s3::listing>> {
    co_return co_await w.s3->async_list_objects("b", asio::use_awaitable);
  });
  REQUIRE_FALSE(whole.has_value());
  CHECK(whole.error().code == errc::malformed_reply);
}

TEST_CASE("list_pager: a failed request leaves the listing where it was; the same page is asked again") {
  std::atomic<int> fail_next{0};
  scripted_server srv(serve([&](std::string const& head, scripted_connection& c) {
    auto const token = query_value(target_of(head), "continuation-token");
    c.count("token=" + token);
    if (token == "T2" && fail_next-- > 0) return c.reply(403, "<Error><Code>AccessDenied</Code></Error>");
    if (token.empty()) return c.reply(200, page_xml({"a"}, "T2"));
    return c.reply(200, page_xml({"b"}, ""));
  }));
  world w(srv.port());
  floe::s3::list_pager pages(*w.s3, "b", floe::s3::list_params{});
  auto next = [&] {
    return w.run([&]() -> asio::awaitable<floe::result<floe::s3::list_page>> {
      co_return co_await pages.async_next_page(asio::use_awaitable);
    });
  };
  REQUIRE(next().has_value());
  fail_next = 1;
  auto failed = next();
  REQUIRE_FALSE(failed.has_value());
  CHECK(failed.error().code == errc::denied);
  CHECK_FALSE(pages.done());
  auto retried = next();
  REQUIRE(retried.has_value());
  CHECK(retried->objects.at(0).key == "b");
  CHECK(pages.done());
  CHECK(srv.counter("token=T2") == 2);
}

TEST_CASE("a download whose resumed reply is an empty 206 fails and leaves the file as it was") {
  std::string const body(100'000, 'x');
  scripted_server srv(serve([&](std::string const& head, scripted_connection& c) {
    auto const range = scripted_connection::header(head, "Range");
    if (range.empty()) {
      c.write("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\nETag: \"e1\"\r\n\r\n" + body.substr(0, 40'000));
      return false;  // cut mid-body
    }
    return c.reply(206, "", "Content-Range: bytes 40000-99999/100000\r\nETag: \"e1\"\r\nContent-Length: 0\r\n");
  }));
  world w(srv.port());
  auto const path = temp_path("empty206");
  { std::ofstream(path) << "the old contents"; }
  auto r = w.run([&]() -> asio::awaitable<floe::result<floe::s3::get_result>> {
    co_return co_await w.s3->async_download("b", "k", path, asio::use_awaitable);
  });
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code == errc::malformed_reply);
  CHECK(r.error().diag.operation == "GetObject");
  CHECK(r.error().diag.resource == "b/k");
  CHECK(r.error().diag.http_status == 206);
  CHECK(r.error().diag.message == "the 206's Content-Length 0 does not match its Content-Range bytes 40000-99999");
  CHECK(read_file(path) == "the old contents");
  auto const dir = std::filesystem::path(path).parent_path();
  for (auto const& e : std::filesystem::directory_iterator(dir))
    CHECK_MESSAGE(e.path().filename().string().find("floe-hostile-" + std::to_string(::getpid()) + "-empty206.floe-") ==
                      std::string::npos,
                  e.path());
  std::remove(path.c_str());
}

TEST_CASE("a GET without Range answered 206 is not the object: in memory or streamed") {
  scripted_server srv(serve([](std::string const&, scripted_connection& c) {
    return c.reply(206, "12345", "Content-Range: bytes 0-4/100000\r\nETag: \"e1\"\r\n");
  }));
  world w(srv.port());
  auto mem = w.run([&]() -> asio::awaitable<floe::result<floe::s3::get_result>> {
    co_return co_await w.s3->async_get_object("b", "k", asio::use_awaitable);
  });
  REQUIRE_FALSE(mem.has_value());
  CHECK(mem.error().code == errc::malformed_reply);
  CHECK(mem.error().diag.message.find("answered a GET that asked for no range") != std::string::npos);
  std::string got;
  floe::http::body_sink::write_fn sink = [&](std::string_view piece, boost::system::error_code&) { got += piece; };
  auto streamed = w.run([&]() -> asio::awaitable<floe::result<floe::s3::get_result>> {
    co_return co_await w.s3->async_get_object_to("b", "k", sink, asio::use_awaitable);
  });
  REQUIRE_FALSE(streamed.has_value());
  CHECK(streamed.error().code == errc::malformed_reply);
  CHECK(got.empty());  // nothing of it delivered
}

TEST_CASE("a reply head trickled a byte at a time times out within the idle timeout, and says so") {
  scripted_server srv([](scripted_connection& c) {
    if (c.read_head().empty()) return;
    std::string const head = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Pad: " + std::string(400, 'p') + "\r\n\r\nok";
    for (char ch : head) {
      if (!c.write(std::string_view(&ch, 1))) return;
      if (c.wait_closed(20ms)) return;  // the server's pace; ends when the client gives up
    }
  });
  world w(srv.port(), [](floe::s3::client_config& cfg) {
    cfg.http.idle_timeout = 300ms;
    cfg.http.retry.max_attempts = 1;
  });
  auto const t0 = std::chrono::steady_clock::now();
  auto r = w.run([&]() -> asio::awaitable<floe::result<floe::s3::get_result>> {
    co_return co_await w.s3->async_head_object("b", "k", asio::use_awaitable);
  });
  auto const took = std::chrono::steady_clock::now() - t0;
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code == errc::timeout);
  CHECK(r.error().diag.message == "timed out: the reply head took longer than 300 ms");
  CHECK(r.error().diag.resource == "b/k");  // bucket/key, not the request target
  CHECK(took < 5s);  // the head alone would take 8 s at this pace
}

}  // namespace s3_hostile_replies_it
