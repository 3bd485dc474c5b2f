// Conditional writes against a real store (moto, or a real Ceph RGW 16.2.15:
// meson runs this program once per store), through a private test proxy with
// its SigV4 verifier on: create-only twice, If-Match stale and right (on RGW
// through the quoted-ETag fallback, remembered per endpoint), conditional
// delete, 304 on GET and HEAD; then the stores' exact error replies replayed
// by the proxy, each mapped to its one outcome, and never retried by the
// HTTP layer; a conditional upload too large for one PUT refused; CopyObject
// and CopyObject copy-source conditions (which moto and RGW 16.2 ignore:
// floe checks them). The quoted-ETag fallback's remember/forget cycle is in
// test_quirks_moto.cpp.
#include "cond_fixture.hpp"
#include "cond_target.hpp"

#include <floe/s3/conditional.hpp>
#include <floe/s3/update.hpp>

#include <boost/asio/use_future.hpp>

#include <unistd.h>

#include <cstdlib>

#include <doctest/doctest.h>

// Its own namespace: it shares a build unit with other test files
// (tests/integration/meson.build).
namespace conditional_conditional_it_it {

namespace asio = boost::asio;
using namespace std::chrono_literals;
using floe::errc;
using floe::http::body_source;
using floe::test::cond_target;
using floe::test::finish;
using namespace floe::s3;

namespace {

using fixture = floe::test::cond_fixture;

}  // namespace

TEST_CASE("create-only twice: written, then precondition_failed") {
  fixture fx("create");
  auto a = fx.put_if("k", "one", "", "*");
  REQUIRE_OK(a);
  REQUIRE(kind_of(*a) == write_outcome_kind::written);
  CHECK_FALSE(std::get<written>(*a).etag.empty());
  auto b = fx.put_if("k", "two", "", "*");
  REQUIRE_OK(b);
  REQUIRE(kind_of(*b) == write_outcome_kind::precondition_failed);
  CHECK(std::get<precondition_failed>(*b).status == 412);
  CHECK(std::get<precondition_failed>(*b).code == "PreconditionFailed");
  auto g = fx.get("k");
  REQUIRE_OK(g);
  CHECK(g->body == "one");
  // Anything but "*" on a write is refused before sending (RGW would overwrite).
  auto c = fx.put_if("k", "three", "", std::get<written>(*a).etag);
  REQUIRE_FALSE(c.has_value());
  CHECK(c.error().code == errc::invalid_argument);
  auto none = fx.put_if("k", "three", "", "");
  REQUIRE_FALSE(none.has_value());
  CHECK(none.error().code == errc::invalid_argument);
}

TEST_CASE("If-Match: stale fails, right writes (quoted-ETag quirk learned on RGW only)") {
  fixture fx("ifmatch");
  auto& t = cond_target::get();
  auto v1 = fx.put("k", "v1");
  REQUIRE_OK(v1);
  auto v2 = fx.put("k", "v2");
  REQUIRE_OK(v2);
  auto stale = fx.put_if("k", "v3", v1->etag, "");
  REQUIRE_OK(stale);
  REQUIRE(kind_of(*stale) == write_outcome_kind::precondition_failed);
  CHECK(std::get<precondition_failed>(*stale).status == 412);
  CHECK(fx.get("k")->body == "v2");

  auto right = fx.put_if("k", "v3", "\"" + v2->etag + "\"", "");
  REQUIRE_OK(right);
  REQUIRE(kind_of(*right) == write_outcome_kind::written);
  auto const e3 = std::get<written>(*right).etag;
  CHECK(fx.get("k")->body == "v3");
  CHECK(same_etag(fx.head("k")->info.etag, e3));
  CHECK(fx.c->quirks().unquoted_if_match(endpoint_key(*fx.c)) == t.is_rgw());

  // Once learned, a right ETag goes through at once, a stale one still fails.
  auto again = fx.put_if("k", "v4", e3, "");
  REQUIRE_OK(again);
  CHECK(kind_of(*again) == write_outcome_kind::written);
  auto stale2 = fx.put_if("k", "v5", e3, "");
  REQUIRE_OK(stale2);
  CHECK(kind_of(*stale2) == write_outcome_kind::precondition_failed);
  CHECK(fx.get("k")->body == "v4");

  // If-Match on a missing key fails the precondition too (412 or 404 NoSuchKey).
  auto missing = fx.put_if("absent", "x", e3, "");
  REQUIRE_OK(missing);
  CHECK(kind_of(*missing) == write_outcome_kind::precondition_failed);
  CHECK_FALSE(fx.head("absent").has_value());
}

TEST_CASE("conditional delete: stale ETag refused, right ETag deletes") {
  fixture fx("delete");
  auto v1 = fx.put("k", "v1");
  REQUIRE_OK(v1);
  auto v2 = fx.put("k", "v2");
  REQUIRE_OK(v2);
  if (cond_target::get().is_rgw()) {
    // Ceph RGW 16.2 ignores If-Match on DeleteObject: refused, nothing deleted.
    for (auto const& e : {v1->etag, v2->etag}) {
      auto f = async_delete_if_match(*fx.c, fx.bucket, "k", e, asio::use_future);
      auto r = finish(fx.io, f);
      REQUIRE_FALSE(r.has_value());
      CHECK(r.error().code == errc::unsupported);
      CHECK(r.error().diag.message.find("If-Match") != std::string::npos);
    }
    CHECK(fx.get("k")->body == "v2");
    CHECK(fx.c->quirks().honours_delete_if_match(endpoint_key(*fx.c)) == false);
    return;
  }
  auto f1 = async_delete_if_match(*fx.c, fx.bucket, "k", v1->etag, asio::use_future);
  auto stale = finish(fx.io, f1);
  REQUIRE_OK(stale);
  REQUIRE(kind_of(*stale) == write_outcome_kind::precondition_failed);
  CHECK(fx.get("k")->body == "v2");
  auto f2 = async_delete_if_match(*fx.c, fx.bucket, "k", v2->etag, asio::use_future);
  auto right = finish(fx.io, f2);
  REQUIRE_OK(right);
  CHECK(kind_of(*right) == write_outcome_kind::written);
  auto gone = fx.head("k");
  REQUIRE_FALSE(gone.has_value());
  CHECK(gone.error().code == errc::not_found);
  CHECK(fx.c->quirks().honours_delete_if_match(endpoint_key(*fx.c)) == true);
}

TEST_CASE("304 Not Modified on GET and HEAD is an outcome; a stale If-Match on GET fails") {
  fixture fx("read304");
  auto v = fx.put("k", "hello");
  REQUIRE_OK(v);
  get_params gp;
  gp.conditions.if_none_match = v->etag;
  auto gf = fx.c->async_get_object(fx.bucket, "k", gp, asio::use_future);
  auto g = finish(fx.io, gf);
  REQUIRE_OK(g);
  CHECK(g->not_modified);
  CHECK(g->body.empty());
  read_conditions rc;
  rc.if_none_match = "\"" + v->etag + "\"";
  auto hf = fx.c->async_head_object(fx.bucket, "k", rc, asio::use_future);
  auto h = finish(fx.io, hf);
  REQUIRE_OK(h);
  CHECK(h->not_modified);
  read_conditions other;
  other.if_none_match = "0123456789abcdef0123456789abcdef";
  auto of = fx.c->async_head_object(fx.bucket, "k", other, asio::use_future);
  auto o = finish(fx.io, of);
  REQUIRE_OK(o);
  CHECK_FALSE(o->not_modified);
  get_params stale;
  stale.conditions.if_match = "0123456789abcdef0123456789abcdef";
  auto sf = fx.c->async_get_object(fx.bucket, "k", stale, asio::use_future);
  auto s = finish(fx.io, sf);
  REQUIRE_FALSE(s.has_value());
  CHECK(s.error().code == errc::precondition_failed);
}

TEST_CASE("replayed error replies: one outcome each, never retried by the HTTP layer") {
  fixture fx("replay");
  auto& t = cond_target::get();
  auto base = fx.put("k", "base");
  REQUIRE_OK(base);
  // A client learns its store's quirks (RGW: If-Match unquoted) from the
  // replies of its own session's writes: one real conditional write first,
  // so that a replaced reply below never hides the 412 that teaches it.
  {
    auto cur = fx.head("k");
    REQUIRE_OK(cur);
    auto learn = fx.put_if("k", "base", cur->info.etag, "");
    REQUIRE_OK(learn);
    REQUIRE(kind_of(*learn) == write_outcome_kind::written);
  }

  struct replay_case {
    char const* name;
    std::string action;  // the proxy rule's action
    write_outcome_kind expect;
    std::string code;
    bool landed;  // forwarded before the reply was replaced
    bool create = false;  // If-None-Match: * on a new key (no quoting fallback)
  };
  auto raw = [&](char const* file, char const* when) {
    return std::string("{\"type\": \"reply\", \"when\": \"") + when + "\", \"raw_b64\": \"" +
           floe::test::base64(t.vector(file)) + "\"}";
  };
  std::vector<replay_case> cases = {
      {"Ceph 409 ConcurrentModification", raw("ceph-409-concurrentmodification.http", "before"),
       write_outcome_kind::conflict, "ConcurrentModification", false},
      {"AWS 409 ConditionalRequestConflict", raw("aws-409-conditionalrequestconflict.http", "before"),
       write_outcome_kind::conflict, "ConditionalRequestConflict", false},
      {"Ceph 500 UnknownError (nothing written)", raw("ceph-pacific-500-unknownerror-race.http", "before"),
       write_outcome_kind::unknown_outcome, "UnknownError", false},
      {"Ceph 500 UnknownError after forwarding (written)", raw("ceph-pacific-500-unknownerror-race.http", "after"),
       write_outcome_kind::unknown_outcome, "UnknownError", true},
      {"HTML 409 from a gateway",
       "{\"type\": \"reply\", \"status\": 409, \"headers\": {\"Content-Type\": \"text/html\"}, \"body\": "
       "\"<html><head><title>409 Conflict</title></head><body>busy</body></html>\"}",
       write_outcome_kind::conflict, "", false},
      {"412 with no body", "{\"type\": \"reply\", \"status\": 412, \"body\": \"\"}",
       write_outcome_kind::precondition_failed, "", false, true},
      {"connection cut after forwarding", "{\"type\": \"cut\", \"when\": \"after\"}",
       write_outcome_kind::unknown_outcome, "", true},
  };
  int n = 0;
  for (auto const& rc : cases) {
    CAPTURE(rc.name);
    auto cur = fx.head("k");
    REQUIRE_OK(cur);
    std::string const data = "body-" + std::to_string(++n);
    std::string const key = rc.create ? "new-" + std::to_string(n) : "k";
    int const id = t.control.add_rule("{\"match\": {\"method\": \"PUT\", \"path\": " +
                                      floe::test::json_str("/" + fx.bucket + "/" + key + "$") +
                                      "}, \"trigger\": {\"nth\": [1]}, " + "\"action\": " + rc.action + "}");
    auto o = rc.create ? fx.put_if(key, data, "", "*") : fx.put_if(key, data, cur->info.etag, "");
    CHECK(t.control.rule_counter(id, "fired") == 1);
    CHECK_MESSAGE(t.control.rule_counter(id, "matched") == 1, "a conditional write was sent more than once");
    t.control.delete_rule(id);
    REQUIRE_OK(o);
    CHECK(to_string(kind_of(*o)) == to_string(rc.expect));
    if (auto const* c = std::get_if<conflict>(&*o)) CHECK(c->code == rc.code);
    if (auto const* u = std::get_if<unknown_outcome>(&*o)) CHECK(u->code == rc.code);
    auto after = fx.get(key);
    if (rc.landed) {
      REQUIRE_OK(after);
      CHECK(after->body == data);
    } else {
      CHECK((!after.has_value() || after->body != data));
    }
  }

  {  // 501 NotImplemented is an error naming the feature
    int const id = t.control.add_rule(
        "{\"match\": {\"method\": \"PUT\", \"path\": " + floe::test::json_str("/" + fx.bucket + "/") +
        "}, \"action\": {\"type\": \"reply\", \"status\": 501, \"headers\": {\"Content-Type\": \"application/xml\"}, "
        "\"body\": \"<?xml version=\\\"1.0\\\" encoding=\\\"UTF-8\\\"?><Error><Code>NotImplemented</Code><Message>A "
        "header you provided implies functionality that is not implemented</Message><Header>If-None-Match</Header>"
        "</Error>\"}}");
    auto o = fx.put_if("new", "x", "", "*");
    CHECK(t.control.rule_counter(id, "matched") == 1);
    REQUIRE_FALSE(o.has_value());
    CHECK(o.error().code == errc::unsupported);
    CHECK(o.error().diag.message.find("conditional PutObject (If-None-Match: *)") != std::string::npos);
    CHECK(o.error().diag.http_status == 501);
  }
}

TEST_CASE("async_update: create, increment, no change, attempts reported") {
  fixture fx("update");
  updater u(*fx.c);
  update_fn inc = [](std::optional<std::string_view> old) -> std::optional<std::string> {
    return std::to_string(old ? std::stoi(std::string(*old)) + 1 : 1);
  };
  for (int i = 1; i <= 3; ++i) {
    auto f = u.async_update(fx.bucket, "n", inc, asio::use_future);
    auto r = finish(fx.io, f);
    REQUIRE_OK(r);
    CHECK(r->changed);
    CHECK(r->attempts == 1);
    CHECK(r->body == std::to_string(i));
  }
  auto h = fx.head("n");
  REQUIRE_OK(h);
  bool has_map = false;
  for (auto const& [k, v] : h->info.metadata)
    if (k == high_water_metadata_name) {
      has_map = true;
      CHECK(v == "1;c;" + u.writer_id() + "=3");
    }
  CHECK_MESSAGE(has_map, "HeadObject shows no x-amz-meta-floe-hw");
  update_fn same = [](std::optional<std::string_view> old) { return std::optional<std::string>(old); };
  auto f = u.async_update(fx.bucket, "n", same, asio::use_future);
  auto r = finish(fx.io, f);
  REQUIRE_OK(r);
  CHECK_FALSE(r->changed);
  CHECK(r->attempts == 0);
  CHECK(r->body == "3");

  updater bad(*fx.c, [] {
    update_config c;
    c.writer_id = "no spaces";
    return c;
  }());
  auto bf = bad.async_update(fx.bucket, "n", inc, asio::use_future);
  auto br = finish(fx.io, bf);
  REQUIRE_FALSE(br.has_value());
  CHECK(br.error().code == errc::invalid_argument);
}

namespace {

// A file of `n` bytes under /tmp, removed at scope exit.
struct temp_data_file {
  std::string path;
  explicit temp_data_file(std::size_t n, char fill) {
    char tmpl[] = "/tmp/floe-cond-file-XXXXXX";
    int fd = ::mkstemp(tmpl);
    REQUIRE(fd >= 0);
    path = tmpl;
    std::string const data(n, fill);
    REQUIRE(::write(fd, data.data(), data.size()) == static_cast<ssize_t>(data.size()));
    ::close(fd);
  }
  ~temp_data_file() { ::unlink(path.c_str()); }
  temp_data_file(temp_data_file const&) = delete;
  temp_data_file& operator=(temp_data_file const&) = delete;
};

copy_params copy_of(fixture const& fx, std::string const& src, std::string const& dst) {
  copy_params p;
  p.source_bucket = fx.bucket;
  p.source_key = src;
  p.bucket = fx.bucket;
  p.key = dst;
  return p;
}

}  // namespace

TEST_CASE("a conditional upload too large for one PUT is refused before anything is sent; below the limit one PUT") {
  // moto and Ceph RGW 16.2 ignore a condition on CompleteMultipartUpload:
  // sent in parts, the condition would be silently dropped there.
  fixture fx("bigcond");
  auto& t = cond_target::get();
  auto cfg = t.client_config();
  cfg.max_single_put = 64 << 10;  // the single-PUT limit is the client's
  auto made = client::create(fx.io.get_executor(), cfg);
  REQUIRE_OK(made);
  client& small = **made;
  temp_data_file big(200 << 10, 'b');
  temp_data_file little(32 << 10, 'l');
  auto v1 = fx.put("k", "v1");
  REQUIRE_OK(v1);

  auto const sent_before = t.control.stat("requests");
  put_params pm;
  pm.if_match = v1->etag;
  auto f1 = small.async_upload_file(fx.bucket, "k", big.path, pm, asio::use_future);
  auto r1 = finish(fx.io, f1);
  REQUIRE_FALSE(r1.has_value());
  CHECK(r1.error().code == errc::unsupported);
  CHECK_MESSAGE(r1.error().diag.message.find("CompleteMultipartUpload") != std::string::npos, r1.error().what());
  CHECK(r1.error().diag.message.find("nothing was uploaded") != std::string::npos);
  // The same through async_put_conditional with the file as its body (what `floe put` calls).
  put_params pc;
  pc.if_none_match = "*";
  auto body = body_source::file(big.path, 0, 200 << 10);
  auto f2 = async_put_conditional(small, fx.bucket, "new", body, pc, asio::use_future);
  auto r2 = finish(fx.io, f2);
  REQUIRE_FALSE(r2.has_value());
  CHECK(r2.error().code == errc::unsupported);
  CHECK(r2.error().diag.message.find("If-None-Match: *") != std::string::npos);
  CHECK_MESSAGE(t.control.stat("requests") == sent_before, "a refused upload sent requests");
  CHECK(fx.get("k")->body == "v1");
  CHECK_FALSE(fx.head("new").has_value());

  // Without a condition the same file goes up in parts: the limit applies.
  auto f3 = small.async_upload_file(fx.bucket, "plain", big.path, asio::use_future);
  auto r3 = finish(fx.io, f3);
  REQUIRE_OK(r3);
  CHECK(r3->parts == 1);
  // Below the limit a conditional upload is one PUT and its condition holds.
  put_params stale;
  stale.if_match = "0123456789abcdef0123456789abcdef";
  auto f4 = small.async_upload_file(fx.bucket, "k", little.path, stale, asio::use_future);
  auto r4 = finish(fx.io, f4);
  REQUIRE_FALSE(r4.has_value());
  CHECK(r4.error().code == errc::precondition_failed);
  auto lbody = body_source::file(little.path, 0, 32 << 10);
  auto f5 = async_put_conditional(small, fx.bucket, "k", lbody, pm, asio::use_future);
  auto r5 = finish(fx.io, f5);
  REQUIRE_OK(r5);
  CHECK(kind_of(*r5) == write_outcome_kind::written);
  CHECK(fx.get("k")->body == std::string(32 << 10, 'l'));
}

TEST_CASE("CopyObject copy-source conditions: a failed one is precondition_failed and nothing is copied") {
  // moto ignores x-amz-copy-source-if-match, Ceph RGW 16.2 both: floe checks
  // them itself there, whether or not it knows the source's size.
  fixture fx("copycond");
  auto v1 = fx.put("src", "one");
  REQUIRE_OK(v1);
  auto v2 = fx.put("src", "two");
  REQUIRE_OK(v2);
  for (bool const known_size : {false, true}) {
    CAPTURE(known_size);
    std::string const n = known_size ? "-sized" : "";
    auto with_size = [&](copy_params p) {
      if (known_size) p.source_size = 3;
      return p;
    };
    auto copy = [&](copy_params const& p) {
      auto f = fx.c->async_copy_object(p, asio::use_future);
      return finish(fx.io, f);
    };
    auto stale = with_size(copy_of(fx, "src", "a" + n));
    stale.source_if_match = v1->etag;
    auto r1 = copy(stale);
    REQUIRE_FALSE(r1.has_value());
    CHECK(r1.error().code == errc::precondition_failed);
    CHECK_FALSE(fx.head("a" + n).has_value());

    auto right = with_size(copy_of(fx, "src", "b" + n));
    right.source_if_match = "\"" + v2->etag + "\"";
    auto r2 = copy(right);
    REQUIRE_OK(r2);
    CHECK(same_etag(r2->etag, v2->etag));
    CHECK(fx.get("b" + n)->body == "two");

    auto current = with_size(copy_of(fx, "src", "c" + n));
    current.source_if_none_match = v2->etag;
    auto r3 = copy(current);
    REQUIRE_FALSE(r3.has_value());
    CHECK(r3.error().code == errc::precondition_failed);
    CHECK_FALSE(fx.head("c" + n).has_value());

    auto other = with_size(copy_of(fx, "src", "d" + n));
    other.source_if_none_match = v1->etag;
    auto r4 = copy(other);
    REQUIRE_OK(r4);
    CHECK(fx.get("d" + n)->body == "two");
  }
}

TEST_CASE("CopyObject copy-source condition: a source replaced between floe's check and the copy is reported") {
  // The proxy makes floe's check see the old version (as if the source was
  // replaced right after it); the store, ignoring the header, copies the new.
  fixture fx("copyrace");
  auto& t = cond_target::get();
  auto v1 = fx.put("src", "one");
  REQUIRE_OK(v1);
  auto v2 = fx.put("src", "two");
  REQUIRE_OK(v2);
  int const id = t.control.add_rule(
      "{\"match\": {\"method\": \"HEAD\", \"path\": " + floe::test::json_str("/" + fx.bucket + "/src$") +
      "}, \"trigger\": {\"first\": 1}, \"action\": {\"type\": \"reply\", \"status\": 200, \"headers\": {\"ETag\": " +
      floe::test::json_str("\"" + v1->etag + "\"") + "}}}");
  auto p = copy_of(fx, "src", "dst");
  p.source_if_match = v1->etag;
  p.source_size = 3;
  auto f = fx.c->async_copy_object(p, asio::use_future);
  auto r = finish(fx.io, f);
  CHECK(t.control.rule_counter(id, "fired") == 1);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code == errc::precondition_failed);
  CHECK_MESSAGE(r.error().diag.message.find("WAS written") != std::string::npos, r.error().what());
  CHECK(r.error().diag.message.find(v2->etag) != std::string::npos);
  CHECK(fx.get("dst")->body == "two");
}

TEST_CASE("CopyObject: the stores' 412 bytes and a 304 are precondition_failed") {
  fixture fx("copy412");
  auto& t = cond_target::get();
  auto v = fx.put("src", "one");
  REQUIRE_OK(v);
  std::string const dst_path = floe::test::json_str("/" + fx.bucket + "/dst$");
  for (char const* file : {"ceph-pacific-412-precondition.http", "moto-412-precondition.http", ""}) {
    CAPTURE(file);
    std::string const action =
        *file ? "{\"type\": \"reply\", \"raw_b64\": \"" + floe::test::base64(t.vector(file)) + "\"}"
              : std::string("{\"type\": \"reply\", \"status\": 304, \"body\": \"\"}");
    int const id = t.control.add_rule("{\"match\": {\"method\": \"PUT\", \"path\": " + dst_path +
                                      ", \"headers_present\": [\"x-amz-copy-source\"]}, \"action\": " + action + "}");
    auto p = copy_of(fx, "src", "dst");
    p.source_if_match = v->etag;
    p.source_size = 3;
    auto f = fx.c->async_copy_object(p, asio::use_future);
    auto r = finish(fx.io, f);
    CHECK(t.control.rule_counter(id, "fired") == 1);
    t.control.delete_rule(id);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == errc::precondition_failed);
    CHECK(r.error().diag.http_status == (*file ? 412u : 304u));
    if (*file) CHECK(r.error().diag.code == "PreconditionFailed");
    CHECK(r.error().diag.operation == "CopyObject");
    CHECK_FALSE(fx.head("dst").has_value());
  }
}

}  // namespace conditional_conditional_it_it
