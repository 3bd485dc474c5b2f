// Objects one request at a time: odd keys, type and metadata, empty objects,
// ranged GETs, a missing key or bucket, and the use_awaitable completion token.
#include "s3_suite.hpp"

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <set>

// Its own namespace: it shares a build unit with other test files
// (tests/integration/meson.build).
namespace s3_objects_it {

namespace {

std::string odd_key_1000() {
  std::string k = "long/";
  while (k.size() < 1000) k += "0123456789abcdef";
  k.resize(1000);
  return k;
}

std::vector<std::string> odd_keys() {
  return {
      "with space and  two",
      "unicode-\xc3\xa9t\xc3\xa9-\xe6\x97\xa5\xe6\x9c\xac-\xd0\xba\xd0\xbb\xd1\x8e\xd1\x87-\xf0\x9f\x98\x80",
      "plus+sign+",
      "percent%20not-an-escape%",
      "equals=a=b",
      "tilde~x",
      "double//slash",
      "/leading-slash",
      "dots/./and/../kept",
      "mixed ~+%=&?#;:@,$!*'()[]",
      odd_key_1000(),
      std::string("control\x01" "char"),
  };
}

}  // namespace

TEST_CASE("keys with spaces, unicode, + % = ~ //, a leading /, 1000 bytes and a control character round-trip") {
  proxy_scope px;
  asio::io_context io;
  auto c = make_client(io);
  bucket_guard b(io, *c, "keys");
  auto const keys = odd_keys();
  for (auto const& k : keys) {
    CAPTURE(k);
    std::string const data = "body of " + k;
    auto p = put(io, *c, b.name, k, data);
    REQUIRE_OK(p);
    CHECK(!p->etag.empty());
    auto hf = c->async_head_object(b.name, k, asio::use_future);
    auto h = finish(io, hf);
    REQUIRE_OK(h);
    CHECK(h->info.size == data.size());
    CHECK(h->info.etag == p->etag);
    auto g = get(io, *c, b.name, k);
    REQUIRE_OK(g);
    CHECK(g->body == data);
  }
  auto lf = c->async_list_objects(b.name, asio::use_future);
  auto l = finish(io, lf);
  REQUIRE_OK(l);
  std::set<std::string> listed;
  for (auto const& o : l->objects) listed.insert(o.key);
  CHECK(listed == std::set<std::string>(keys.begin(), keys.end()));

  // A prefix with a delimiter: "double//slash" is under "double/" then "/".
  floe::s3::list_params lp;
  lp.prefix = "double/";
  lp.delimiter = "/";
  auto pf = c->async_list_objects(b.name, lp, asio::use_future);
  auto pl = finish(io, pf);
  REQUIRE_OK(pl);
  CHECK(pl->objects.empty());
  REQUIRE(pl->common_prefixes.size() == 1);
  CHECK(pl->common_prefixes[0] == "double//");

  auto df = c->async_delete_objects(b.name, keys, asio::use_future);
  auto d = finish(io, df);
  REQUIRE_OK(d);
  CHECK(d->errors.empty());
  CHECK(d->deleted.size() == keys.size());
  auto lf2 = c->async_list_objects(b.name, asio::use_future);
  auto l2 = finish(io, lf2);
  REQUIRE_OK(l2);
  CHECK(l2->objects.empty());
}

TEST_CASE("content type and user metadata are stored and read back") {
  proxy_scope px;
  asio::io_context io;
  auto c = make_client(io);
  bucket_guard b(io, *c, "meta");
  floe::s3::put_params pp;
  pp.content_type = "text/x-floe; charset=utf-8";
  pp.metadata = {{"origin", "integration test"}, {"n", "42"}};
  std::string const data = "metadata test";
  auto body = body_source::memory(data);
  auto f = c->async_put_object(b.name, "m", body, pp, asio::use_future);
  auto p = finish(io, f);
  REQUIRE_OK(p);
  auto hf = c->async_head_object(b.name, "m", asio::use_future);
  auto h = finish(io, hf);
  REQUIRE_OK(h);
  CHECK(h->info.content_type == "text/x-floe; charset=utf-8");
  auto stored = h->info.metadata;
  std::sort(stored.begin(), stored.end());
  REQUIRE(stored.size() == 2);
  CHECK(stored[0] == std::pair<std::string, std::string>("n", "42"));
  CHECK(stored[1] == std::pair<std::string, std::string>("origin", "integration test"));
}

TEST_CASE("empty objects: PUT, HEAD says 0 bytes, GET and download give nothing") {
  proxy_scope px;
  asio::io_context io;
  auto c = make_client(io);
  bucket_guard b(io, *c, "empty");
  std::string const none;
  auto p = put(io, *c, b.name, "empty", none);
  REQUIRE_OK(p);
  CHECK(p->etag == "d41d8cd98f00b204e9800998ecf8427e");  // MD5 of nothing
  auto hf = c->async_head_object(b.name, "empty", asio::use_future);
  auto h = finish(io, hf);
  REQUIRE_OK(h);
  CHECK(h->info.size == 0);
  auto g = get(io, *c, b.name, "empty");
  REQUIRE_OK(g);
  CHECK(g->body.empty());
  temp_dir dir;
  auto const path = dir.file("empty.out");
  {
    std::ofstream pre(path);
    pre << "old contents";
  }
  auto df = c->async_download(b.name, "empty", path, asio::use_future);
  auto d = finish(io, df);
  REQUIRE_OK(d);
  CHECK(fs::file_size(path) == 0);
}

TEST_CASE("ranged GET returns exactly the bytes asked for, with Content-Range") {
  proxy_scope px;
  asio::io_context io;
  auto c = make_client(io);
  bucket_guard b(io, *c, "range");
  std::string const data = "0123456789abcdefghijklmnopqrstuvwxyz";
  REQUIRE_OK(put(io, *c, b.name, "r", data));

  floe::s3::get_params mid;
  mid.range = {{2, 9}};
  auto f1 = c->async_get_object(b.name, "r", mid, asio::use_future);
  auto g1 = finish(io, f1);
  REQUIRE_OK(g1);
  CHECK(g1->body == "23456789");
  CHECK(g1->info.content_range == "bytes 2-9/36");
  CHECK(g1->info.size == data.size());

  floe::s3::get_params tail;
  tail.range = {{30, std::nullopt}};
  auto f2 = c->async_get_object(b.name, "r", tail, asio::use_future);
  auto g2 = finish(io, f2);
  REQUIRE_OK(g2);
  CHECK(g2->body == "uvwxyz");

  floe::s3::get_params last;
  last.range = {{35, 35}};
  temp_dir dir;
  auto const path = dir.file("last");
  auto f3 = c->async_download(b.name, "r", path, last, asio::use_future);
  auto g3 = finish(io, f3);
  REQUIRE_OK(g3);
  std::ifstream in(path);
  std::string got((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(got == "z");

  // A server that ignores Range answers 200 with the whole object: an
  // error, and none of those bytes reach the caller or the file.
  auto& ctl = s3_target::get().control;
  int const ignore = ctl.add_rule(R"({"match": {"method": "GET", "path": "^/)" + b.name +
                                  R"(/r$", "headers_present": ["range"]}, "action": {"type": "reply", "status": 200, "headers": {"Content-Type": "application/octet-stream", "ETag": "\"x\""}, "body": )" +
                                  json_str(data) + "}}");
  auto f4 = c->async_get_object(b.name, "r", mid, asio::use_future);
  auto g4 = finish(io, f4);
  REQUIRE_FALSE(g4.has_value());
  CHECK(g4.error().code == errc::malformed_reply);
  CHECK(g4.error().diag.message.find("Range ignored") != std::string::npos);
  auto const path2 = dir.file("ignored");
  auto f5 = c->async_download(b.name, "r", path2, tail, asio::use_future);
  auto g5 = finish(io, f5);
  REQUIRE_FALSE(g5.has_value());
  CHECK(g5.error().code == errc::malformed_reply);
  CHECK_FALSE(fs::exists(path2));  // a failed download creates no file
  CHECK(ctl.rule_counter(ignore, "fired") >= 2);
  ctl.delete_rule(ignore);
}

TEST_CASE("a missing key and a missing bucket are told apart") {
  proxy_scope px;
  asio::io_context io;
  auto c = make_client(io);
  bucket_guard b(io, *c, "missing");
  auto k = get(io, *c, b.name, "no-such-key");
  REQUIRE(!k.has_value());
  CHECK(k.error().code == errc::not_found);
  CHECK(k.error().diag.code == "NoSuchKey");
  auto const nb = bucket_name("nobucket");
  auto nbk = get(io, *c, nb, "k");
  REQUIRE(!nbk.has_value());
  CHECK(nbk.error().code == errc::not_found);
  CHECK(nbk.error().diag.code == "NoSuchBucket");
  // HEAD has no body to tell which: both are not_found.
  auto hf = c->async_head_object(b.name, "no-such-key", asio::use_future);
  auto h = finish(io, hf);
  REQUIRE(!h.has_value());
  CHECK(h.error().code == errc::not_found);
  auto lf = c->async_list_objects(nb, asio::use_future);
  auto l = finish(io, lf);
  REQUIRE(!l.has_value());
  CHECK(l.error().diag.code == "NoSuchBucket");
}

TEST_CASE("with use_awaitable, operations complete in the calling coroutine: values, errors as values, cancellation by the caller") {
  proxy_scope px;
  asio::io_context io;
  auto c = make_client(io);
  bucket_guard b(io, *c, "inline");
  auto& ctl = s3_target::get().control;
  int const hold = ctl.add_rule(R"({"match": {"method": "GET", "path": "^/)" + b.name +
                                R"(/held$"}, "action": {"type": "hold"}})");
  struct {
    bool put = false;
    std::string body, part, head_etag, put_etag;
    boost::system::error_code missing, held;
  } seen;
  // Names bound to variables before each co_await (the GCC 12 note in s3/client.hpp).
  auto story = [&]() -> asio::awaitable<void> {
    std::string const data = "0123456789";
    auto const body = body_source::memory(data);
    auto p = co_await c->async_put_object(b.name, "k", body, asio::use_awaitable);
    seen.put = p.has_value();
    if (p) seen.put_etag = p->etag;
    auto g = co_await c->async_get_object(b.name, "k", asio::use_awaitable);
    if (g) seen.body = g->body;
    floe::s3::get_params range;
    range.range = {{2, 5}};
    auto r = co_await c->async_get_object(b.name, "k", range, asio::use_awaitable);
    if (r) seen.part = r->body;
    auto h = co_await c->async_head_object(b.name, "k", asio::use_awaitable);
    if (h) seen.head_etag = h->info.etag;
    auto m = co_await c->async_get_object(b.name, "absent", asio::use_awaitable);
    if (!m) seen.missing = m.error().code;
    auto held = co_await c->async_get_object(b.name, "held", asio::use_awaitable);
    if (!held) seen.held = held.error().code;
  };
  asio::cancellation_signal cancel;
  bool done = false;
  std::exception_ptr thrown;
  asio::co_spawn(io, story(), asio::bind_cancellation_slot(cancel.slot(), [&](std::exception_ptr e) {
                   done = true;
                   thrown = e;
                 }));
  // Until the last GET is held at the proxy (bounded), then cancel the caller.
  run_until(io, [&] { return ctl.rule_counter(hold, "held") != 0 || done; }, 60s);
  REQUIRE(ctl.rule_counter(hold, "held") == 1);
  cancel.emit(asio::cancellation_type::terminal);
  run_until(io, [&] { return done; }, 30s);
  REQUIRE(done);
  CHECK_FALSE(thrown);  // every outcome, the cancellation included, came back as a value
  CHECK(seen.put);
  CHECK(seen.body == "0123456789");
  CHECK(seen.part == "2345");
  CHECK(seen.head_etag == seen.put_etag);
  CHECK(seen.missing == errc::not_found);
  CHECK(seen.held == asio::error::operation_aborted);
  ctl.delete_rule(hold);  // releases what it held
  auto after = get(io, *c, b.name, "k");  // the client is still usable
  REQUIRE_OK(after);
  CHECK(after->body == "0123456789");
}

}  // namespace s3_objects_it
