// The Ceph RGW 16.2 quoted-ETag quirk's whole cycle, against moto through a
// private test proxy that refuses one quoting of If-Match the way RGW
// refuses the quoted one (its exact 412 bytes from tests/data/vectors/errors):
// a PUT retried unquoted and the mode remembered, then forgotten when an
// unquoted PUT is refused the same way; and the DELETE fallback, which RGW
// itself never runs (it ignores If-Match on DeleteObject). Against moto only:
// on RGW the store would refuse the quoted form itself. Rule counters assert
// the exact request sequence.
#include "cond_fixture.hpp"
#include "cond_target.hpp"

#include <floe/s3/conditional.hpp>
#include <floe/s3/update.hpp>

#include <boost/asio/use_future.hpp>

#include <unistd.h>

#include <cstdlib>

#include <doctest/doctest.h>

#include <cstdint>

// Its own namespace: it shares a build unit with other test files
// (tests/integration/meson.build).
namespace conditional_quirks_moto_it {

namespace asio = boost::asio;
using namespace std::chrono_literals;
using floe::errc;
using floe::http::body_source;
using floe::test::cond_target;
using floe::test::finish;
using namespace floe::s3;

namespace {

// A rule that only counts: it matches and never fires (put it before the
// rules that act, which later rules never see).
std::string counter_rule(std::string const& method, std::string const& path, std::string const& if_match_regex = {}) {
  std::string m = "{\"method\": \"" + method + "\", \"path\": " + floe::test::json_str(path);
  if (!if_match_regex.empty()) m += ", \"header\": {\"If-Match\": " + floe::test::json_str(if_match_regex) + "}";
  return "{\"match\": " + m + "}, \"trigger\": {\"nth\": [1000000]}, \"action\": {\"type\": \"delay\", \"ms\": 0}}";
}

// A rule answering with the exact bytes of a tests/data/vectors/errors file.
std::string replay_rule(std::string const& method, std::string const& path, std::string const& if_match_regex,
                        std::string const& vector_file) {
  auto& t = cond_target::get();
  std::string m = "{\"method\": \"" + method + "\", \"path\": " + floe::test::json_str(path);
  if (!if_match_regex.empty()) m += ", \"header\": {\"If-Match\": " + floe::test::json_str(if_match_regex) + "}";
  return "{\"match\": " + m + "}, \"action\": {\"type\": \"reply\", \"when\": \"before\", \"raw_b64\": \"" +
         floe::test::base64(t.vector(vector_file)) + "\"}}";
}


using fixture = floe::test::cond_fixture;

}  // namespace

TEST_CASE("quoted If-Match refused -> unquoted retry remembered; unquoted refused -> forgotten") {
  fixture fx("quirkflip");
  auto& t = cond_target::get();
  auto& q = fx.c->quirks();
  std::string const ep = endpoint_key(*fx.c);
  q.set_unquoted_if_match(ep, false);
  auto v1 = fx.put("k", "v1");
  REQUIRE_OK(v1);
  std::string const path = "/" + fx.bucket + "/k$";
  int const heads = t.control.add_rule(counter_rule("HEAD", path));
  int const quoted = t.control.add_rule(counter_rule("PUT", path, "^\""));
  int const unquoted = t.control.add_rule(counter_rule("PUT", path, "^[^\"]"));
  int const refuse_quoted =
      t.control.add_rule(replay_rule("PUT", path, "^\"", "ceph-pacific-412-precondition.http"));
  auto count = [&](int id) { return t.control.rule_counter(id, "matched"); };
  // The requests the store has seen so far, each kind counted.
  auto seen = [&](char const* step, std::int64_t quoted_puts, std::int64_t unquoted_puts, std::int64_t head_requests) {
    INFO("after step ", step);
    CHECK(count(quoted) == quoted_puts);
    CHECK(count(unquoted) == unquoted_puts);
    CHECK(count(heads) == head_requests);
  };

  // 1. The quoted form is refused while the object has that very ETag: one
  //    HEAD, one unquoted retry, which succeeds and is remembered.
  auto w1 = fx.put_if("k", "v2", v1->etag, "");
  REQUIRE_OK(w1);
  REQUIRE(kind_of(*w1) == write_outcome_kind::written);
  CHECK(t.control.rule_counter(refuse_quoted, "fired") == 1);
  seen("1", 1, 1, 1);
  CHECK(q.unquoted_if_match(ep));
  CHECK(fx.get("k")->body == "v2");

  // 2. Remembered: the next write goes unquoted at once, no HEAD.
  auto w2 = fx.put_if("k", "v3", std::get<written>(*w1).etag, "");
  REQUIRE_OK(w2);
  REQUIRE(kind_of(*w2) == write_outcome_kind::written);
  seen("2", 1, 2, 1);

  // 3. Now the unquoted form is refused the same way while the ETag still
  //    matches: forgotten, and the quoted form sent again, which succeeds.
  t.control.delete_rule(refuse_quoted);
  int const refuse_unquoted =
      t.control.add_rule(replay_rule("PUT", path, "^[^\"]", "ceph-pacific-412-precondition.http"));
  auto w3 = fx.put_if("k", "v4", std::get<written>(*w2).etag, "");
  REQUIRE_OK(w3);
  REQUIRE(kind_of(*w3) == write_outcome_kind::written);
  CHECK(t.control.rule_counter(refuse_unquoted, "fired") == 1);
  seen("3", 2, 3, 2);
  CHECK_FALSE(q.unquoted_if_match(ep));
  CHECK(fx.get("k")->body == "v4");

  // 4. Forgotten: the next write goes quoted at once.
  auto w4 = fx.put_if("k", "v5", std::get<written>(*w3).etag, "");
  REQUIRE_OK(w4);
  CHECK(kind_of(*w4) == write_outcome_kind::written);
  seen("4", 3, 3, 2);

  // A real lost race (another ETag there) is reported, not retried.
  auto stale = fx.put_if("k", "v6", v1->etag, "");
  REQUIRE_OK(stale);
  CHECK(kind_of(*stale) == write_outcome_kind::precondition_failed);
  seen("the lost race", 4, 3, 3);
  CHECK(fx.get("k")->body == "v5");
  q.set_unquoted_if_match(ep, false);
}

TEST_CASE("a conditional DELETE whose quoted If-Match is refused is retried unquoted and deletes") {
  fixture fx("quirkdel");
  auto& t = cond_target::get();
  auto& q = fx.c->quirks();
  std::string const ep = endpoint_key(*fx.c);
  q.set_unquoted_if_match(ep, false);
  auto v1 = fx.put("k", "v1");
  REQUIRE_OK(v1);
  std::string const path = "/" + fx.bucket + "/k$";
  int const heads = t.control.add_rule(counter_rule("HEAD", path));
  int const unquoted = t.control.add_rule(counter_rule("DELETE", path, "^[^\"]"));
  int const refuse_quoted =
      t.control.add_rule(replay_rule("DELETE", path, "^\"", "ceph-pacific-412-precondition.http"));
  auto f = async_delete_if_match(*fx.c, fx.bucket, "k", v1->etag, asio::use_future);
  auto r = finish(fx.io, f);
  REQUIRE_OK(r);
  CHECK(kind_of(*r) == write_outcome_kind::written);
  CHECK(t.control.rule_counter(refuse_quoted, "fired") == 1);
  CHECK(t.control.rule_counter(refuse_quoted, "matched") == 1);
  CHECK(t.control.rule_counter(heads, "matched") == 1);
  CHECK(t.control.rule_counter(unquoted, "matched") == 1);
  CHECK(q.unquoted_if_match(ep));
  auto gone = fx.head("k");
  REQUIRE_FALSE(gone.has_value());
  CHECK(gone.error().code == errc::not_found);
  q.set_unquoted_if_match(ep, false);
}

}  // namespace conditional_quirks_moto_it
