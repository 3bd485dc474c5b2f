// Conditional writes and exact compare-and-swap, without sockets: the
// outcome mapping (status, code, raw replies from tests/data/vectors/errors),
// ETag comparison, the high-water map's encoding, and update_machine driven
// against an in-memory store with injected faults.
#include <floe/s3/conditional.hpp>
#include <floe/s3/update.hpp>

#include <doctest/doctest.h>

#include "test_data.hpp"

#include <map>
#include <random>
#include <string>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace s3_conditional_test {

using floe::errc;
using namespace floe::s3;
using wk = write_outcome_kind;
using clock_type = std::chrono::steady_clock;

namespace {

struct raw_reply {
  unsigned status = 0;
  std::string body;
};

raw_reply read_vector(std::string const& name) {
  std::string const all = floe_test::slurp(floe_test::reply_vector_dir() + name);
  auto const head_end = all.find("\r\n\r\n");
  REQUIRE(head_end != std::string::npos);
  raw_reply r;
  r.status = static_cast<unsigned>(std::stoul(all.substr(all.find(' ') + 1, 3)));
  r.body = all.substr(head_end + 4);
  return r;
}

}  // namespace

TEST_CASE("classify_conditional_write: each (status, code) gives one outcome") {
  CHECK(classify_conditional_write(200, "", true) == wk::written);
  CHECK(classify_conditional_write(204, "", true) == wk::written);
  CHECK(classify_conditional_write(412, "PreconditionFailed", true) == wk::precondition_failed);
  CHECK(classify_conditional_write(412, "", false) == wk::precondition_failed);
  CHECK(classify_conditional_write(404, "NoSuchKey", true) == wk::precondition_failed);
  CHECK(classify_conditional_write(404, "NoSuchKey", false) == wk::error);
  CHECK(classify_conditional_write(404, "NoSuchBucket", true) == wk::error);
  CHECK(classify_conditional_write(409, "ConditionalRequestConflict", true) == wk::conflict);
  CHECK(classify_conditional_write(409, "ConcurrentModification", true) == wk::conflict);
  CHECK(classify_conditional_write(409, "OperationAborted", false) == wk::conflict);
  CHECK(classify_conditional_write(409, "", true) == wk::conflict);
  CHECK(classify_conditional_write(500, "UnknownError", true) == wk::unknown_outcome);
  CHECK(classify_conditional_write(500, "InternalError", false) == wk::unknown_outcome);
  CHECK(classify_conditional_write(503, "SlowDown", true) == wk::unknown_outcome);
  CHECK(classify_conditional_write(502, "", true) == wk::unknown_outcome);
  CHECK(classify_conditional_write(0, "", true) == wk::unknown_outcome);
  CHECK(classify_conditional_write(501, "NotImplemented", true) == wk::error);
  CHECK(classify_conditional_write(403, "AccessDenied", true) == wk::error);
  CHECK(classify_conditional_write(400, "InvalidArgument", true) == wk::error);
  CHECK(to_string(wk::conflict) == "conflict");
}

TEST_CASE("outcome_of_reply: the stores' own bytes") {
  SUBCASE("Ceph 409 ConcurrentModification is a conflict") {
    auto v = read_vector("ceph-409-concurrentmodification.http");
    auto o = outcome_of_reply(v.status, v.body, true, "conditional PutObject (If-Match)");
    REQUIRE(o.has_value());
    REQUIRE(kind_of(*o) == wk::conflict);
    CHECK(std::get<conflict>(*o).code == "ConcurrentModification");
    CHECK(std::get<conflict>(*o).status == 409);
  }
  SUBCASE("AWS 409 ConditionalRequestConflict is a conflict with its message") {
    auto v = read_vector("aws-409-conditionalrequestconflict.http");
    auto o = outcome_of_reply(v.status, v.body, false, "conditional PutObject (If-None-Match: *)");
    REQUIRE(o.has_value());
    REQUIRE(kind_of(*o) == wk::conflict);
    CHECK(std::get<conflict>(*o).code == "ConditionalRequestConflict");
    CHECK(std::get<conflict>(*o).message.find("conflicting operation") != std::string::npos);
  }
  SUBCASE("Ceph 16.2 500 UnknownError is an unknown outcome") {
    auto v = read_vector("ceph-pacific-500-unknownerror-race.http");
    auto o = outcome_of_reply(v.status, v.body, true, "x");
    REQUIRE(o.has_value());
    REQUIRE(kind_of(*o) == wk::unknown_outcome);
    CHECK(std::get<unknown_outcome>(*o).code == "UnknownError");
    CHECK(std::get<unknown_outcome>(*o).status == 500);
  }
  SUBCASE("Ceph and moto 412 are failed preconditions") {
    for (auto name : {"ceph-pacific-412-precondition.http", "moto-412-precondition.http"}) {
      CAPTURE(name);
      auto v = read_vector(name);
      auto o = outcome_of_reply(v.status, v.body, true, "x");
      REQUIRE(o.has_value());
      REQUIRE(kind_of(*o) == wk::precondition_failed);
      CHECK(std::get<precondition_failed>(*o).code == "PreconditionFailed");
    }
    auto m = read_vector("moto-412-precondition.http");
    auto o = outcome_of_reply(m.status, m.body, false, "x");
    CHECK(std::get<precondition_failed>(*o).message.find("pre-conditions") != std::string::npos);
  }
  SUBCASE("Ceph 404 NoSuchKey racing a delete fails an If-Match write's precondition") {
    auto v = read_vector("ceph-pacific-404-nosuchkey-race.http");
    auto o = outcome_of_reply(v.status, v.body, true, "x");
    REQUIRE(o.has_value());
    REQUIRE(kind_of(*o) == wk::precondition_failed);
    CHECK(std::get<precondition_failed>(*o).code == "NoSuchKey");
  }
  SUBCASE("a 412 with no body") {
    auto o = outcome_of_reply(412, "", true, "x");
    REQUIRE(o.has_value());
    REQUIRE(kind_of(*o) == wk::precondition_failed);
    CHECK(std::get<precondition_failed>(*o).code.empty());
  }
  SUBCASE("an HTML 409 from a gateway is a conflict") {
    auto o = outcome_of_reply(409, "<html><body><h1>409 Conflict</h1>upstream busy</body></html>", true, "x");
    REQUIRE(o.has_value());
    CHECK(kind_of(*o) == wk::conflict);
  }
  SUBCASE("501 NotImplemented is an error naming the feature") {
    auto o = outcome_of_reply(501,
                              "<?xml version=\"1.0\"?><Error><Code>NotImplemented</Code><Message>A header you provided "
                              "implies functionality that is not implemented</Message></Error>",
                              false, "conditional PutObject (If-None-Match: *)");
    REQUIRE_FALSE(o.has_value());
    CHECK(o.error().code == errc::unsupported);
    CHECK(o.error().diag.message.find("conditional PutObject (If-None-Match: *)") != std::string::npos);
    CHECK(o.error().diag.message.find("501 NotImplemented") != std::string::npos);
  }
  SUBCASE("a 200 is written, with the normalised ETag") {
    auto o = outcome_of_reply(200, "", true, "x", "\"abc\"", "v1");
    REQUIRE(o.has_value());
    REQUIRE(kind_of(*o) == wk::written);
    CHECK(std::get<written>(*o).etag == "abc");
    CHECK(std::get<written>(*o).version_id == "v1");
  }
  SUBCASE("a 403 stays an error") {
    auto v = read_vector("head-403-nobody.http");
    auto o = outcome_of_reply(v.status, v.body, true, "x");
    REQUIRE_FALSE(o.has_value());
    CHECK(o.error().code == errc::denied);
  }
}

TEST_CASE("outcome_of_error keeps the store's status, code and message") {
  floe::error e(errc::conflict, "busy");
  e.diag.http_status = 409;
  e.diag.code = "ConcurrentModification";
  auto o = outcome_of_error(e, "f");
  REQUIRE(o.has_value());
  CHECK(std::get<conflict>(*o).message == "busy");
  floe::error d(errc::denied, "no");
  auto od = outcome_of_error(d, "f");
  REQUIRE_FALSE(od.has_value());
  CHECK(od.error().code == errc::denied);
  CHECK(od.error().diag.message == "no");
}

TEST_CASE("same_etag normalises quotes and W/") {
  CHECK(same_etag("abc", "\"abc\""));
  CHECK(same_etag("W/\"abc\"", "abc"));
  CHECK(same_etag("\"abc\"", "\"abc\""));
  CHECK_FALSE(same_etag("abc", "abd"));
  CHECK_FALSE(same_etag("", ""));
  CHECK_FALSE(same_etag("\"\"", ""));
}

TEST_CASE("judge_ambiguous_put: own write id, absent key, unchanged base, another version") {
  using what = ambiguous_put_verdict::what;
  CHECK(judge_ambiguous_put(std::nullopt, "id1", "abc").verdict == what::absent);
  object_info o;
  o.etag = "e2";
  o.version_id = "v2";
  o.metadata = {{"count", "3"}, {std::string(write_id_metadata_name), "id1"}};
  auto v = judge_ambiguous_put(o, "id1", "e1");
  CHECK(v.verdict == what::landed);
  CHECK(v.etag == "e2");
  CHECK(v.version_id == "v2");
  CHECK(judge_ambiguous_put(o, "id2", "e1").verdict == what::other_version);
  CHECK(judge_ambiguous_put(o, "id2", "e1").there_id == "id1");
  CHECK(judge_ambiguous_put(o, "id2", "\"e2\"").verdict == what::base_unchanged);  // quoted If-Match
  CHECK(judge_ambiguous_put(o, "id2", "").verdict == what::other_version);            // create-only
  o.metadata.clear();
  CHECK(judge_ambiguous_put(o, "", "").verdict == what::other_version);  // no id: never "landed"
  CHECK(judge_ambiguous_put(o, "", "").there_id.empty());
}

TEST_CASE("undecided: another version without a write id is worth a second look") {
  using what = ambiguous_put_verdict::what;
  object_info o;
  o.etag = "e2";
  CHECK(undecided(judge_ambiguous_put(o, "id1", "e1")));  // no metadata yet: may be this write, shown late
  o.metadata = {{std::string(write_id_metadata_name), "id9"}};
  CHECK_FALSE(undecided(judge_ambiguous_put(o, "id1", "e1")));  // another floe writer's version
  o.metadata = {{std::string(write_id_metadata_name), "id1"}};
  CHECK_FALSE(undecided(judge_ambiguous_put(o, "id1", "e1")));  // landed
  CHECK_FALSE(undecided(judge_ambiguous_put(std::nullopt, "id1", "e1")));
  o.metadata.clear();
  CHECK(judge_ambiguous_put(o, "id1", "e2").verdict == what::base_unchanged);
  CHECK_FALSE(undecided(judge_ambiguous_put(o, "id1", "e2")));
  // The CLI's resolution and async_update read again the same number of times.
  CHECK(resolve_params{}.undecided_rereads == default_undecided_rereads);
  CHECK(update_config{}.undecided_rereads == default_undecided_rereads);
}

namespace {
addressing_config at(std::string const& url) {
  addressing_config a;
  a.region = "us-east-1";
  if (!url.empty()) {
    auto e = parse_endpoint_url(url);
    REQUIRE(e.has_value());
    a.custom_endpoint = *e;
  }
  return a;
}
}  // namespace

TEST_CASE("is_aws_endpoint: AWS's own endpoints only") {
  CHECK(is_aws_endpoint(at("")));  // no custom endpoint: AWS
  CHECK(is_aws_endpoint(at("https://s3.us-east-1.amazonaws.com")));
  CHECK(is_aws_endpoint(at("https://s3.dualstack.eu-west-1.amazonaws.com")));
  CHECK(is_aws_endpoint(at("https://s3-fips.us-gov-west-1.amazonaws.com")));
  CHECK(is_aws_endpoint(at("https://s3.cn-north-1.amazonaws.com.cn")));
  CHECK(is_aws_endpoint(at("https://S3.US-EAST-1.AMAZONAWS.COM")));  // host names are case-insensitive
  CHECK_FALSE(is_aws_endpoint(at("http://127.0.0.1:9000")));
  CHECK_FALSE(is_aws_endpoint(at("http://localhost:7480")));
  CHECK_FALSE(is_aws_endpoint(at("https://minio.example.com")));
  CHECK_FALSE(is_aws_endpoint(at("https://storage.googleapis.com")));
  CHECK_FALSE(is_aws_endpoint(at("https://amazonaws.com.evil.example")));
  CHECK_FALSE(is_aws_endpoint(at("https://notamazonaws.com")));
  CHECK_FALSE(is_aws_endpoint(at("https://s3.amazonaws.com.cn.example.org")));
}

TEST_CASE("plan_conditional_upload: one PUT, condition on Complete at AWS, refused elsewhere") {
  using plan = conditional_upload_plan;
  std::uint64_t const five_gib = 5ull << 30;
  for (auto const& url : {std::string(), std::string("https://s3.eu-central-1.amazonaws.com"),
                          std::string("http://127.0.0.1:7480"), std::string("https://minio.example.com")}) {
    CAPTURE(url);
    CHECK(plan_conditional_upload(0, five_gib, at(url)) == plan::single_put);
    CHECK(plan_conditional_upload(five_gib, five_gib, at(url)) == plan::single_put);  // the limit itself fits
  }
  CHECK(plan_conditional_upload(five_gib + 1, five_gib, at("")) == plan::condition_on_complete);
  CHECK(plan_conditional_upload(five_gib + 1, five_gib, at("https://s3.eu-central-1.amazonaws.com")) ==
        plan::condition_on_complete);
  CHECK(plan_conditional_upload(five_gib + 1, five_gib, at("http://127.0.0.1:7480")) == plan::refuse);
  CHECK(plan_conditional_upload(five_gib + 1, five_gib, at("https://minio.example.com")) == plan::refuse);
  // The limit is the client's (client_config::max_single_put), not a constant.
  CHECK(plan_conditional_upload(65537, 65536, at("http://127.0.0.1:7480")) == plan::refuse);
  CHECK(plan_conditional_upload(65536, 65536, at("http://127.0.0.1:7480")) == plan::single_put);
  CHECK(client_config{}.max_single_put == five_gib);
}

TEST_CASE("write_quirks remembers and forgets per endpoint") {
  write_quirks q;
  CHECK_FALSE(q.unquoted_if_match("http://127.0.0.1:1"));
  q.set_unquoted_if_match("http://127.0.0.1:1", true);
  CHECK(q.unquoted_if_match("http://127.0.0.1:1"));
  CHECK_FALSE(q.unquoted_if_match("http://127.0.0.1:2"));
  q.set_unquoted_if_match("http://127.0.0.1:1", false);
  CHECK_FALSE(q.unquoted_if_match("http://127.0.0.1:1"));
}

TEST_CASE("high-water map: encoding, strict decoding, bounds") {
  high_water_map m;
  CHECK(encode_high_water(m) == "1;c;");
  m.record("w1", 3, 32);
  m.record("w2", 7, 32);
  m.record("w1", 5, 32);
  CHECK(encode_high_water(m) == "1;c;w1=5,w2=7");
  auto d = decode_high_water("1;c;w1=5,w2=7");
  REQUIRE(d.has_value());
  CHECK(*d == m);
  CHECK(d->find("w2") == 7u);
  CHECK_FALSE(d->find("w3").has_value());
  auto e = decode_high_water("1;c;");
  REQUIRE(e.has_value());
  CHECK(e->entries.empty());
  CHECK(decode_high_water("1;t;a=18446744073709551615")->find("a") == 18446744073709551615ull);
  CHECK(decode_high_water("1;t;a=1")->trimmed);

  SUBCASE("a lower number never lowers an entry") {
    m.record("w2", 1, 32);
    CHECK(m.find("w2") == 7u);
    CHECK(m.entries.front().first == "w2");
  }
  SUBCASE("malformed maps are refused") {
    for (auto bad : {"", "1;c", "2;c;", "1;x;", "1;c;a", "1;c;a=", "1;c;a=x", "1;c;a=01", "1;c;a=1,", "1;c;a=1,a=2",
                     "1;c;a b=1", "1;c;=1", "1;c;a=18446744073709551616", "1;c;a=-1", "1;c;a=+1", "1;c;a=1;b=2"}) {
      CAPTURE(bad);
      auto r = decode_high_water(bad);
      REQUIRE_FALSE(r.has_value());
      CHECK(r.error().code == errc::malformed_reply);
    }
    CHECK_FALSE(decode_high_water("1;c;" + std::string(2000, 'a') + "=1").has_value());
  }
  SUBCASE("eviction: least recently written first, and the map says it was trimmed") {
    high_water_map n;
    for (int i = 0; i < 5; ++i) n.record("w" + std::to_string(i), 1, 3);
    CHECK(n.entries.size() == 3);
    CHECK(n.trimmed);
    CHECK(n.find("w4").has_value());
    CHECK_FALSE(n.find("w0").has_value());
    CHECK(encode_high_water(n).substr(0, 4) == "1;t;");
  }
  SUBCASE("64 writers with the longest ids and numbers stay within 1 KiB") {
    high_water_map n;
    for (int i = 0; i < 64; ++i) {
      std::string id = std::to_string(i) + std::string(writer_id_max_size, 'x');
      id.resize(writer_id_max_size);
      n.record(id, 18446744073709551615ull, 64);
    }
    CHECK(encode_high_water(n).size() <= high_water_max_bytes);
    CHECK(n.trimmed);
    CHECK(n.entries.size() >= 15);
    CHECK(decode_high_water(encode_high_water(n)).has_value());
  }
  CHECK(valid_writer_id("abc-DEF_09"));
  CHECK_FALSE(valid_writer_id(""));
  CHECK_FALSE(valid_writer_id("a=b"));
  CHECK_FALSE(valid_writer_id(std::string(41, 'a')));
}

// --- update_machine against an in-memory store --------------------------------

namespace {

struct fake_store {
  bool exists = false;
  std::string body;
  std::string etag;
  std::vector<std::pair<std::string, std::string>> metadata;
  unsigned writes = 0;

  static std::string etag_of(std::string const& b) {
    return std::to_string(std::hash<std::string>{}(b));  // the body only, like S3's
  }
  object_state read() const {
    object_state s;
    s.exists = exists;
    if (exists) {
      s.body = body;
      s.etag = "\"" + etag + "\"";
      s.metadata = metadata;
    }
    return s;
  }
  // Applies the conditional write if its condition holds.
  floe::result<write_outcome> write(update_machine::write_request const& w) {
    bool const ok = w.create_only ? !exists : (exists && same_etag(w.if_match, etag));
    if (!ok) return write_outcome{precondition_failed{412, "PreconditionFailed", ""}};
    exists = true;
    body = w.body;
    etag = etag_of(body);
    metadata = w.metadata;
    ++writes;
    return write_outcome{written{etag, ""}};
  }
  void write_outside(std::string const& b) {  // a writer that knows nothing of floe
    exists = true;
    body = b;
    etag = etag_of(b);
    metadata.clear();
  }
};

std::optional<std::string> increment(std::optional<std::string_view> old) {
  return std::to_string(old ? std::stoi(std::string(*old)) + 1 : 1);
}

enum class fault { none, lost_after_apply, error500_not_applied, conflict409 };

// Runs one update to the end; `faults` decides per write attempt.
floe::result<update_result> drive(fake_store& s, update_machine& m, std::function<fault(unsigned)> const& faults,
                                  clock_type::time_point& now, std::function<void(unsigned)> const& before_read = {}) {
  unsigned writes = 0, reads = 0;
  auto st = m.start();
  while (st != update_machine::step::done) {
    REQUIRE(writes + reads < 10000);
    switch (st) {
      case update_machine::step::read:
        if (before_read) before_read(reads);
        ++reads;
        st = m.on_read(s.read(), now);
        break;
      case update_machine::step::write: {
        auto const f = faults ? faults(writes++) : fault::none;
        if (f == fault::conflict409) {
          st = m.on_write(write_outcome{conflict{409, "ConcurrentModification", ""}}, now, 0.5);
        } else if (f == fault::error500_not_applied) {
          st = m.on_write(write_outcome{unknown_outcome{500, "UnknownError", ""}}, now, 0.5);
        } else {
          auto r = s.write(m.write());
          if (f == fault::lost_after_apply) r = write_outcome{unknown_outcome{0, "", "cut"}};
          st = m.on_write(std::move(r), now, 0.5);
        }
        break;
      }
      case update_machine::step::sleep:
        now += m.sleep();
        st = m.on_slept(now);
        break;
      case update_machine::step::done:
        break;
    }
  }
  return m.outcome();
}

update_config test_config() {
  update_config c;
  c.max_attempts = 20;
  c.deadline = std::chrono::milliseconds(60000);
  c.backoff_base = std::chrono::milliseconds(10);
  c.backoff_max = std::chrono::milliseconds(1000);
  return c;
}

}  // namespace

TEST_CASE("update_machine: create, update, no change") {
  fake_store s;
  auto cfg = test_config();
  std::uint64_t seq = 1;
  auto now = clock_type::time_point{};
  update_fn fn = increment;
  {
    update_machine m("wA", seq, cfg, fn, now);
    auto r = drive(s, m, {}, now);
    REQUIRE(r.has_value());
    CHECK(r->changed);
    CHECK(r->attempts == 1);
    CHECK(r->body == "1");
    CHECK(s.body == "1");
    REQUIRE(s.metadata.size() == 1);
    CHECK(s.metadata[0].first == "floe-hw");
    CHECK(s.metadata[0].second == "1;c;wA=1");
  }
  {
    update_machine m("wA", seq, cfg, fn, now);
    auto r = drive(s, m, {}, now);
    REQUIRE(r.has_value());
    CHECK(s.body == "2");
    CHECK(s.metadata[0].second == "1;c;wA=2");
    CHECK(r->sequence == 2);
  }
  {
    update_fn same = [](std::optional<std::string_view> old) { return std::optional<std::string>(*old); };
    update_machine m("wA", seq, cfg, same, now);
    auto r = drive(s, m, {}, now);
    REQUIRE(r.has_value());
    CHECK_FALSE(r->changed);
    CHECK(r->attempts == 0);
    CHECK(r->body == "2");
    CHECK(s.writes == 2);
  }
  {
    update_fn none = [](std::optional<std::string_view>) { return std::optional<std::string>(); };
    fake_store empty;
    update_machine m("wA", seq, cfg, none, now);
    auto r = drive(empty, m, {}, now);
    REQUIRE(r.has_value());
    CHECK_FALSE(r->changed);
    CHECK_FALSE(empty.exists);
  }
}

TEST_CASE("update_machine: a lost race re-reads and goes again") {
  fake_store s;
  s.write_outside("10");
  auto cfg = test_config();
  std::uint64_t seq = 1;
  auto now = clock_type::time_point{};
  update_fn fn = increment;
  update_machine m("wA", seq, cfg, fn, now);
  // Another writer changes the object between our read and our write, once.
  bool raced = false;
  auto r = drive(s, m, [&](unsigned n) {
    if (n == 0 && !raced) {
      raced = true;
      s.write_outside("20");
    }
    return fault::none;
  }, now);
  REQUIRE(r.has_value());
  CHECK(s.body == "21");
  CHECK(r->attempts == 2);
  CHECK(r->reads == 2);
  // The first floe write over an outside version: history unknown, so trimmed.
  CHECK(s.metadata[0].second == "1;t;wA=2");
}

TEST_CASE("update_machine: conflicts back off with jitter, bounded by attempts and deadline") {
  auto cfg = test_config();
  std::uint64_t seq = 1;
  update_fn fn = increment;
  SUBCASE("back-off grows and the write goes through") {
    fake_store s;
    auto now = clock_type::time_point{};
    update_machine m("wA", seq, cfg, fn, now);
    auto const t0 = now;
    auto r = drive(s, m, [](unsigned n) { return n < 3 ? fault::conflict409 : fault::none; }, now);
    REQUIRE(r.has_value());
    CHECK(r->conflicts == 3);
    CHECK(r->attempts == 4);
    CHECK(s.body == "1");
    // 0.5 x (10 + 20 + 40) ms
    CHECK(now - t0 == std::chrono::milliseconds(35));
  }
  SUBCASE("attempts exhausted") {
    fake_store s;
    auto now = clock_type::time_point{};
    cfg.max_attempts = 4;
    update_machine m("wA", seq, cfg, fn, now);
    auto r = drive(s, m, [](unsigned) { return fault::conflict409; }, now);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == errc::attempts_exhausted);
    CHECK(r.error().diag.attempt == 4);
  }
  SUBCASE("the deadline") {
    fake_store s;
    auto now = clock_type::time_point{};
    cfg.deadline = std::chrono::milliseconds(100);
    cfg.max_attempts = 1000;
    update_machine m("wA", seq, cfg, fn, now);
    auto r = drive(s, m, [](unsigned) { return fault::conflict409; }, now);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == errc::timeout);
    CHECK(r.error().diag.attempt >= 3);
  }
}

TEST_CASE("update_machine: ambiguous replies are resolved by the high-water map") {
  auto cfg = test_config();
  update_fn fn = increment;
  auto now = clock_type::time_point{};

  SUBCASE("landed, reply lost, others wrote on top: done, not written twice") {
    fake_store s;
    std::uint64_t seqA = 1, seqB = 1;
    update_machine m("wA", seqA, cfg, fn, now);
    auto r = drive(s, m, [](unsigned n) { return n == 0 ? fault::lost_after_apply : fault::none; }, now,
                   [&](unsigned reads) {
                     if (reads == 1) {  // before the re-read, writer B updates twice
                       for (int i = 0; i < 2; ++i) {
                         update_machine mb("wB", seqB, cfg, fn, now);
                         REQUIRE(drive(s, mb, {}, now).has_value());
                       }
                     }
                   });
    REQUIRE(r.has_value());
    CHECK(r->confirmed_by_reread);
    CHECK(r->attempts == 1);
    CHECK(r->unknown == 1);
    CHECK(s.body == "3");
  }
  SUBCASE("not landed (500), object unchanged: written once by the next attempt") {
    fake_store s;
    s.write_outside("5");
    std::uint64_t seq = 1;
    update_machine m("wA", seq, cfg, fn, now);
    auto r = drive(s, m, [](unsigned n) { return n == 0 ? fault::error500_not_applied : fault::none; }, now);
    REQUIRE(r.has_value());
    CHECK_FALSE(r->confirmed_by_reread);
    CHECK(r->attempts == 2);
    CHECK(s.body == "6");
  }
  SUBCASE("not landed (500), another floe writer wrote: the complete map proves it; go again") {
    fake_store s;
    std::uint64_t seqA = 1, seqB = 1;
    {
      update_machine mb("wB", seqB, cfg, fn, now);
      REQUIRE(drive(s, mb, {}, now).has_value());
    }
    update_machine m("wA", seqA, cfg, fn, now);
    auto r = drive(s, m, [](unsigned n) { return n == 0 ? fault::error500_not_applied : fault::none; }, now,
                   [&](unsigned reads) {
                     if (reads == 1) {
                       update_machine mb("wB", seqB, cfg, fn, now);
                       REQUIRE(drive(s, mb, {}, now).has_value());
                     }
                   });
    REQUIRE(r.has_value());
    CHECK(s.body == "3");
  }
  SUBCASE("a writer outside floe replaced the object: unknown_outcome, never a guess") {
    fake_store s;
    std::uint64_t seq = 1;
    update_machine m("wA", seq, cfg, fn, now);
    auto r = drive(s, m, [](unsigned n) { return n == 0 ? fault::lost_after_apply : fault::none; }, now,
                   [&](unsigned reads) {
                     if (reads == 1) s.write_outside("99");
                   });
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == errc::unknown_outcome);
    CHECK(r.error().diag.message.find("outside floe") != std::string::npos);
    CHECK(r.error().diag.attempt == 1);
    CHECK(m.outcome().error().diag.attempt == 1);
  }
  SUBCASE("a version seen before its metadata (moto): read again, then resolved") {
    fake_store s;
    std::uint64_t seqA = 1, seqB = 1;
    update_machine m("wA", seqA, cfg, fn, now);
    std::vector<std::pair<std::string, std::string>> hidden;
    auto r = drive(s, m, [](unsigned n) { return n == 0 ? fault::lost_after_apply : fault::none; }, now,
                   [&](unsigned reads) {
                     if (reads == 1) {  // B writes on top; its metadata shows up one read late
                       update_machine mb("wB", seqB, cfg, fn, now);
                       REQUIRE(drive(s, mb, {}, now).has_value());
                       hidden = std::move(s.metadata);
                       s.metadata.clear();
                     } else if (reads == 2) {
                       s.metadata = hidden;
                     }
                   });
    REQUIRE(r.has_value());
    CHECK(r->confirmed_by_reread);
    CHECK(r->reads == 3);
    CHECK(s.body == "2");
  }
  SUBCASE("this writer's entry was evicted: unknown_outcome") {
    fake_store s;
    cfg.max_writers = 2;
    std::uint64_t seqA = 1, seqB = 1, seqC = 1;
    update_machine m("wA", seqA, cfg, fn, now);
    auto r = drive(s, m, [](unsigned n) { return n == 0 ? fault::lost_after_apply : fault::none; }, now,
                   [&](unsigned reads) {
                     if (reads == 1) {
                       update_machine mb("wB", seqB, cfg, fn, now);
                       REQUIRE(drive(s, mb, {}, now).has_value());
                       update_machine mc("wC", seqC, cfg, fn, now);
                       REQUIRE(drive(s, mc, {}, now).has_value());
                     }
                   });
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == errc::unknown_outcome);
    CHECK(r.error().diag.message.find("evicted") != std::string::npos);
  }
  SUBCASE("the re-read fails: unknown_outcome carrying the read's diagnostics") {
    std::uint64_t seq = 1;
    update_machine m("wA", seq, cfg, fn, now);
    REQUIRE(m.start() == update_machine::step::read);
    REQUIRE(m.on_read(object_state{}, now) == update_machine::step::write);
    REQUIRE(m.on_write(write_outcome{unknown_outcome{}}, now, 0.5) == update_machine::step::read);
    floe::error denied(floe::errc::denied, "no");
    denied.diag.http_status = 403;
    REQUIRE(m.on_read(denied, now) == update_machine::step::done);
    REQUIRE_FALSE(m.outcome().has_value());
    CHECK(m.outcome().error().code == errc::unknown_outcome);
    CHECK(m.outcome().error().diag.http_status == 403);
  }
  SUBCASE("giving up while an ambiguous write may still land is unknown_outcome") {
    fake_store s;
    cfg.max_attempts = 3;
    std::uint64_t seq = 1;
    update_machine m("wA", seq, cfg, fn, now);
    auto r = drive(s, m, [](unsigned) { return fault::error500_not_applied; }, now);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == errc::unknown_outcome);
    CHECK(r.error().diag.attempt == 3);
  }
}

TEST_CASE("update_machine: a restarted writer never reuses a sequence number the map holds") {
  fake_store s;
  auto cfg = test_config();
  update_fn fn = increment;
  auto now = clock_type::time_point{};
  std::uint64_t seq = 57;
  {
    update_machine m("wA", seq, cfg, fn, now);
    REQUIRE(drive(s, m, {}, now).has_value());
  }
  std::uint64_t restarted = 1;
  update_machine m("wA", restarted, cfg, fn, now);
  auto r = drive(s, m, [](unsigned n) { return n == 0 ? fault::error500_not_applied : fault::none; }, now);
  REQUIRE(r.has_value());
  CHECK_FALSE(r->confirmed_by_reread);  // 57 in the map is not this update's
  CHECK(r->sequence == 59);             // 58 was the lost attempt
  CHECK(s.body == "2");
}

TEST_CASE("update_machine: 16 interleaved writers x 10 increments with faults end exactly at 160") {
  for (std::uint32_t seed : {1u, 2u, 3u, 4u, 5u}) {
    CAPTURE(seed);
    std::mt19937 rng(seed);
    fake_store s;
    auto cfg = test_config();
    cfg.max_attempts = 1000;
    cfg.deadline = std::chrono::milliseconds(0);
    update_fn fn = increment;
    auto now = clock_type::time_point{};
    struct writer {
      std::string id;
      std::uint64_t seq = 1;
      std::unique_ptr<update_machine> m;
      update_machine::step st{};
      int left = 10;
    };
    std::vector<writer> ws(16);
    for (std::size_t i = 0; i < ws.size(); ++i) ws[i].id = "w" + std::to_string(i);
    unsigned faults[4] = {0, 0, 0, 0};
    int active = 16;
    for (unsigned steps = 0; active > 0; ++steps) {
      REQUIRE(steps < 200000);
      auto& w = ws[rng() % ws.size()];
      if (w.left == 0) continue;
      if (!w.m) {
        w.m = std::make_unique<update_machine>(w.id, w.seq, cfg, fn, now);
        w.st = w.m->start();
      }
      switch (w.st) {
        case update_machine::step::read: w.st = w.m->on_read(s.read(), now); break;
        case update_machine::step::write: {
          auto const roll = rng() % 10;
          fault const f = roll == 0 ? fault::lost_after_apply : roll == 1 ? fault::error500_not_applied
                                                                          : roll == 2 ? fault::conflict409 : fault::none;
          ++faults[static_cast<int>(f)];
          if (f == fault::conflict409)
            w.st = w.m->on_write(write_outcome{conflict{409, "", ""}}, now, 0.5);
          else if (f == fault::error500_not_applied)
            w.st = w.m->on_write(write_outcome{unknown_outcome{500, "", ""}}, now, 0.5);
          else {
            auto r = s.write(w.m->write());
            if (f == fault::lost_after_apply) r = write_outcome{unknown_outcome{}};
            w.st = w.m->on_write(std::move(r), now, 0.5);
          }
          break;
        }
        case update_machine::step::sleep: w.st = w.m->on_slept(now); break;
        case update_machine::step::done: {
          auto& r = w.m->outcome();
          REQUIRE_MESSAGE(r.has_value(), r.error().what());
          w.m.reset();
          if (--w.left == 0) --active;
          break;
        }
      }
    }
    CHECK(faults[1] >= 5);
    CHECK(faults[2] >= 5);
    CHECK(faults[3] >= 5);
    CHECK(s.body == "160");
    CHECK(s.writes == 160);
  }
}

}  // namespace s3_conditional_test
