// Listings and DeleteObjects: paging past 1000 keys, batches of 1000, and
// the keys a store could not delete, reported.
#include "s3_suite.hpp"

// Its own namespace: it shares a build unit with other test files
// (tests/integration/meson.build).
namespace s3_listing_it {

TEST_CASE("listing more than 1000 keys pages transparently; DeleteObjects of 1500 keys deletes them all") {
  proxy_scope px;
  asio::io_context io;
  auto c = make_client(io);
  bucket_guard b(io, *c, "many");
  std::vector<std::string> keys;
  for (int i = 0; i < 1500; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "k/%05d", i);
    keys.emplace_back(name);
  }
  std::string const data = "x";
  auto body = body_source::memory(data);
  constexpr std::size_t in_flight = 16;
  for (std::size_t i = 0; i < keys.size(); i += in_flight) {
    std::vector<std::future<floe::result<floe::s3::put_result>>> fs_;
    for (std::size_t j = i; j < std::min(keys.size(), i + in_flight); ++j)
      fs_.push_back(c->async_put_object(b.name, keys[j], body, asio::use_future));
    for (auto& f : fs_) REQUIRE_OK(finish(io, f));
  }
  auto lf = c->async_list_objects(b.name, asio::use_future);
  auto l = finish(io, lf, 120s);
  REQUIRE_OK(l);
  CHECK(l->pages == 2);
  REQUIRE(l->objects.size() == keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) CHECK(l->objects[i].key == keys[i]);

  floe::s3::list_params after;
  after.start_after = "k/01234";
  after.page_size = 100;
  auto af = c->async_list_objects(b.name, after, asio::use_future);
  auto a = finish(io, af, 120s);
  REQUIRE_OK(a);
  CHECK(a->objects.size() == 265);
  CHECK(a->pages == 3);
  REQUIRE(!a->objects.empty());
  CHECK(a->objects.front().key == "k/01235");

  // Exactly two POST ?delete (1000 + 500), each with a Content-MD5 of the
  // body's MD5 (base64 of 16 bytes), as AWS requires of DeleteObjects.
  auto& ctl = s3_target::get().control;
  int const with_md5 = ctl.add_rule(R"({"match": {"method": "POST", "path": "^/)" + b.name +
                                    R"(/?$", "query": "^delete$", "headers_present": ["Content-MD5"], "header": {"Content-MD5": "^[A-Za-z0-9+/]{22}==$"}}, "action": {"type": "delay", "ms": 0}})");
  int const without_md5 = ctl.add_rule(R"({"match": {"method": "POST", "path": "^/)" + b.name +
                                       R"(/?$", "query": "^delete$"}, "action": {"type": "delay", "ms": 0}})");
  auto df = c->async_delete_objects(b.name, keys, asio::use_future);
  auto d = finish(io, df, 120s);
  REQUIRE_OK(d);
  CHECK(d->complete());
  CHECK(d->errors.empty());
  CHECK(d->deleted.size() == 1500);
  CHECK(ctl.rule_counter(with_md5, "fired") == 2);
  CHECK(ctl.rule_counter(without_md5, "matched") == 0);
  auto lf2 = c->async_list_objects(b.name, asio::use_future);
  auto l2 = finish(io, lf2);
  REQUIRE_OK(l2);
  CHECK(l2->objects.empty());
}

TEST_CASE("DeleteObjects reports the keys the store could not delete") {
  proxy_scope px;
  asio::io_context io;
  auto c = make_client(io);
  bucket_guard b(io, *c, "delerr");
  std::vector<std::string> keys{"a", "b & c", "d"};
  for (auto const& k : keys) REQUIRE_OK(put(io, *c, b.name, k, "x"));
  auto& ctl = s3_target::get().control;
  std::string const reply =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<DeleteResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
      "<Error><Key>b &amp; c</Key><Code>AccessDenied</Code><Message>Access Denied</Message></Error></DeleteResult>";
  int const rule = ctl.add_rule(R"({"match": {"method": "POST", "path": "^/)" + b.name +
                                R"(/?$", "query": "^delete$"}, "trigger": {"nth": [1]}, "action": {"type": "reply", "when": "after", "status": 200, "headers": {"Content-Type": "application/xml"}, "body": )" +
                                json_str(reply) + "}}");
  auto df = c->async_delete_objects(b.name, keys, asio::use_future);
  auto d = finish(io, df);
  REQUIRE_OK(d);
  CHECK(ctl.rule_counter(rule, "fired") == 1);
  REQUIRE(d->errors.size() == 1);
  CHECK(d->errors[0].key == "b & c");
  CHECK(d->errors[0].code == "AccessDenied");
  std::sort(d->deleted.begin(), d->deleted.end());
  CHECK(d->deleted == std::vector<std::string>{"a", "d"});
}

TEST_CASE("DeleteObjects whose second batch fails reports what the first deleted, the error and the keys left") {
  proxy_scope px;
  asio::io_context io;
  auto cfg = base_config(s3_target::get().secret_key);
  cfg.http.retry.max_attempts = 1;
  auto c = make_client(io, cfg);
  bucket_guard b(io, *c, "delstop");
  // 1500 keys; a few of them exist, in each batch (a missing key deletes fine).
  std::vector<std::string> keys;
  for (int i = 0; i < 1500; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "k/%05d", i);
    keys.emplace_back(name);
  }
  for (auto i : {0, 999, 1000, 1499}) REQUIRE_OK(put(io, *c, b.name, keys[static_cast<std::size_t>(i)], "x"));
  auto& ctl = s3_target::get().control;
  std::string const denied =
      R"({"type": "reply", "status": 403, "headers": {"Content-Type": "application/xml"}, "body": "<Error><Code>AccessDenied</Code><Message>denied by the test</Message><RequestId>DELREQ</RequestId></Error>"})";
  int const second = ctl.add_rule(R"({"match": {"method": "POST", "path": "^/)" + b.name +
                                  R"(/?$", "query": "^delete$"}, "trigger": {"nth": [2, 3]}, "action": )" + denied + "}");
  auto df = c->async_delete_objects(b.name, keys, asio::use_future);
  auto d = finish(io, df, 120s);
  REQUIRE_OK(d);
  CHECK(ctl.rule_counter(second, "matched") == 2);
  CHECK_FALSE(d->complete());
  CHECK(d->failure.code == errc::denied);
  CHECK(d->failure.diag.code == "AccessDenied");
  CHECK(d->failure.diag.operation == "DeleteObjects");
  CHECK(d->errors.empty());
  REQUIRE(d->deleted.size() == 1000);
  CHECK(d->deleted.front() == keys[0]);
  CHECK(d->deleted.back() == keys[999]);
  REQUIRE(d->not_done.size() == 500);
  CHECK(d->not_done.front() == keys[1000]);
  CHECK(d->not_done.back() == keys[1499]);
  // The store agrees: the first batch's keys are gone, the second's are not.
  auto lf = c->async_list_objects(b.name, asio::use_future);
  auto l = finish(io, lf);
  REQUIRE_OK(l);
  std::vector<std::string> left;
  for (auto const& o : l->objects) left.push_back(o.key);
  CHECK(left == std::vector<std::string>{keys[1000], keys[1499]});

  // When the first request fails nothing was done: a plain error.
  std::vector<std::string> two{keys[1000], keys[1499]};
  auto ef = c->async_delete_objects(b.name, two, asio::use_future);
  auto e = finish(io, ef);
  REQUIRE_FALSE(e.has_value());
  CHECK(e.error().code == errc::denied);
  CHECK(ctl.rule_counter(second, "fired") == 2);
}

}  // namespace s3_listing_it
