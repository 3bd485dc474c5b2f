// parse_event_message on real bodies (moto 5.2.1's, captured by
// tests/data/events/capture_moto.py, and AWS's documented shapes) and on
// the ways a body can be wrong.
#include <floe/watch/event.hpp>

#include <doctest/doctest.h>

#include "test_data.hpp"

#include <string>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace watch_event_test {

using floe::errc;
using namespace floe::watch;

namespace {

std::string event_file(std::string const& name) { return floe_test::data_file("events/" + name); }

event_message parse_ok(std::string const& body) {
  auto r = parse_event_message(body);
  REQUIRE_MESSAGE(r.has_value(), (r ? std::string() : r.error().what()));
  return *r;
}

std::string reason_of(std::string const& body) {
  auto r = parse_event_message(body);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code == floe::make_error_code(errc::malformed_reply));
  CHECK_FALSE(r.error().diag.message.empty());
  return r.error().diag.message;
}

}  // namespace

TEST_CASE("moto: a PUT of a key with a space, '+', '%', unicode and '/' (encoded as %2F)") {
  auto m = parse_ok(event_file("moto-01-ObjectCreated-Put.json"));
  CHECK(m.kind == message_kind::object_events);
  CHECK(m.format == event_format::s3_notification);
  CHECK_FALSE(m.sns_envelope);
  REQUIRE(m.events.size() == 1);
  auto const& e = m.events[0];
  CHECK(e.kind == event_kind::object_created);
  CHECK(wants_action(e));
  CHECK(e.name == "ObjectCreated:Put");
  CHECK(e.bucket == "lake");
  CHECK(e.key == "in/day 1/a+b%c \xc3\xa9\xe2\x98\x83.parquet");
  CHECK(e.size == 100u);
  CHECK(e.etag == "aed563ecafb4bcc5654c597a421547b2");
  CHECK(e.version_id.empty());  // moto sends none
  CHECK(e.sequencer.empty());   // moto sends none
  CHECK(e.event_time == "2026-12-01T15:14:09.111176");  // no 'Z'
  CHECK_FALSE(asks_for_nothing(m));
}

TEST_CASE("moto: a multipart upload arrives twice, as Put and as CompleteMultipartUpload, same object") {
  auto a = parse_ok(event_file("moto-02-ObjectCreated-Put.json"));
  auto b = parse_ok(event_file("moto-03-ObjectCreated-CompleteMultipartUpload.json"));
  REQUIRE(a.events.size() == 1);
  REQUIRE(b.events.size() == 1);
  CHECK(a.events[0].name == "ObjectCreated:Put");
  CHECK(b.events[0].name == "ObjectCreated:CompleteMultipartUpload");
  CHECK(wants_action(a.events[0]));
  CHECK(wants_action(b.events[0]));
  CHECK(a.events[0].key == "in/big.parquet");
  CHECK(a.events[0].key == b.events[0].key);
  CHECK(a.events[0].etag == "ad75efb1f93d0873aa6555e8c351656d-2");
  CHECK(a.events[0].etag == b.events[0].etag);
  CHECK(a.events[0].size == 5242884u);
}

TEST_CASE("moto: copy is created, delete asks for nothing, the test event asks for nothing") {
  auto c = parse_ok(event_file("moto-04-ObjectCreated-Copy.json"));
  CHECK(wants_action(c.events.at(0)));
  CHECK(c.events[0].key == "in/copy.parquet");
  auto d = parse_ok(event_file("moto-05-ObjectRemoved-Delete.json"));
  CHECK(d.events.at(0).kind == event_kind::object_removed);
  CHECK_FALSE(d.events[0].delete_marker);
  CHECK(wants_action(d.events[0], true));
  CHECK_FALSE(wants_action(d.events[0]));
  CHECK(d.events[0].name == "ObjectRemoved:Delete");
  CHECK(asks_for_nothing(d));
  auto t = parse_ok(event_file("moto-00-test-event.json"));
  CHECK(t.kind == message_kind::test_event);
  CHECK(t.test_bucket == "lake");
  CHECK(t.events.empty());
  CHECK(asks_for_nothing(t));
}

TEST_CASE("moto through SNS: the envelope, raw delivery, the test event in both") {
  auto w = parse_ok(event_file("moto-sns-01-ObjectCreated-Put.json"));
  CHECK(w.sns_envelope);
  CHECK(w.sns_message_id == "cc1a20ed-f862-4ee0-b3f8-d4188b7a80c4");
  REQUIRE(w.events.size() == 1);
  CHECK(w.events[0].bucket == "lake2");
  CHECK(w.events[0].key == "out/x y+z.parquet");
  CHECK(w.events[0].etag == "0bbc18cdea1c4aaa17777d441214774a");
  auto r = parse_ok(event_file("moto-sns-raw-01-ObjectCreated-Put.json"));
  CHECK_FALSE(r.sns_envelope);
  REQUIRE(r.events.size() == 1);
  CHECK(r.events[0].key == w.events[0].key);
  auto wt = parse_ok(event_file("moto-sns-00-test-event.json"));
  CHECK(wt.kind == message_kind::test_event);
  CHECK(wt.sns_envelope);
  CHECK(asks_for_nothing(wt));
  auto rt = parse_ok(event_file("moto-sns-raw-00-test-event.json"));
  CHECK(rt.kind == message_kind::test_event);
  CHECK(rt.test_bucket == "lake2");
}

TEST_CASE("moto through EventBridge: key not encoded, eTag, version-id \"null\", other detail-types") {
  auto m = parse_ok(event_file("moto-eventbridge-00-ObjectCreated.json"));
  CHECK(m.format == event_format::eventbridge);
  REQUIRE(m.events.size() == 1);
  auto const& e = m.events[0];
  CHECK(e.kind == event_kind::object_created);
  CHECK(e.name == "Object Created");
  CHECK(e.reason == "ObjectCreated");
  CHECK(e.bucket == "lake2");
  CHECK(e.key == "out/x y+z.parquet");  // taken as it is: '+' stays
  CHECK(e.size == 10u);
  CHECK(e.etag == "0bbc18cdea1c4aaa17777d441214774a");
  CHECK(e.version_id.empty());  // "null": the null version, which HEAD does not name
  CHECK(e.sequencer == "617F08299329D189");  // kept upper-case (ledger/sequencer.hpp)
  CHECK(e.event_time == "2026-12-01T15:14:17Z");
  auto t = parse_ok(event_file("moto-eventbridge-01-ObjectTagsAdded.json"));
  CHECK(t.events.at(0).kind == event_kind::other);
  CHECK(asks_for_nothing(t));
}

TEST_CASE("AWS's documented shapes") {
  SUBCASE("an S3 notification with every field") {
    auto m = parse_ok(event_file("aws-s3-put.json"));
    REQUIRE(m.events.size() == 1);
    auto const& e = m.events[0];
    CHECK(e.bucket == "amzn-s3-demo-bucket");
    CHECK(e.key == "HappyFace.jpg");
    CHECK(e.size == 1024u);
    CHECK(e.etag == "d41d8cd98f00b204e9800998ecf8427e");
    CHECK(e.version_id == "096fKKXTRTtl3on89fVO.nfljtsv6qko");
    CHECK(e.sequencer == "0055AED6DCD90281E5");
    CHECK(e.event_time == "1970-01-01T00:00:00.000Z");
  }
  SUBCASE("two records in one message, one to act on") {
    auto m = parse_ok(event_file("aws-s3-two-records.json"));
    REQUIRE(m.events.size() == 2);
    CHECK(m.events[0].key == "sales/year=2024/my report (2).parquet");
    CHECK(wants_action(m.events[0]));
    CHECK_FALSE(wants_action(m.events[1]));
    CHECK_FALSE(m.events[1].size.has_value());
    CHECK(m.events[1].etag.empty());
    CHECK_FALSE(asks_for_nothing(m));
  }
  SUBCASE("the test event") {
    auto m = parse_ok(event_file("aws-s3-test-event.json"));
    CHECK(m.kind == message_kind::test_event);
    CHECK(m.test_bucket == "amzn-s3-demo-bucket");
  }
  SUBCASE("an SNS envelope") {
    auto m = parse_ok(event_file("aws-sns-s3-put.json"));
    CHECK(m.sns_envelope);
    CHECK(m.sns_message_id == "22b80b92-fdea-4c2c-8f9d-bdfb0c7bf324");
    CHECK(m.events.at(0).key == "HappyFace.jpg");
  }
  SUBCASE("EventBridge Object Created and Object Deleted") {
    auto c = parse_ok(event_file("aws-eventbridge-object-created.json"));
    REQUIRE(c.events.size() == 1);
    CHECK(c.events[0].kind == event_kind::object_created);
    CHECK(c.events[0].bucket == "amzn-s3-demo-bucket1");
    CHECK(c.events[0].key == "example-key");
    CHECK(c.events[0].etag == "b1946ac92492d2347c6235b4d2611184");
    CHECK(c.events[0].version_id == "IYV3p45BT0ac8hjHg1houSdS1a.Mro8e");
    CHECK(c.events[0].reason == "PutObject");
    CHECK(c.events[0].event_time == "2021-11-12T00:00:00Z");
    auto d = parse_ok(event_file("aws-eventbridge-object-deleted.json"));
    CHECK(d.events.at(0).kind == event_kind::object_removed);
    CHECK(d.events[0].delete_marker);
    CHECK(d.events[0].sequencer == "617F0837B476E463");
    CHECK(asks_for_nothing(d));
  }
}

TEST_CASE("decode_event_key: once, exactly") {
  CHECK(decode_event_key("a+b").value() == "a b");
  CHECK(decode_event_key("a%2Bb").value() == "a+b");
  CHECK(decode_event_key("a%2bb").value() == "a+b");
  CHECK(decode_event_key("100%25").value() == "100%");
  CHECK(decode_event_key("%2525").value() == "%25");  // decoded once, not twice
  CHECK(decode_event_key("in%2Fx").value() == "in/x");
  CHECK(decode_event_key("%C3%A9").value() == "\xc3\xa9");
  CHECK(decode_event_key("\xc3\xa9").value() == "\xc3\xa9");  // raw UTF-8 kept
  CHECK(decode_event_key("").value().empty());
  for (char const* bad : {"%", "%2", "a%G1", "a%1G", "%%", "abc%2"}) {
    CAPTURE(bad);
    auto r = decode_event_key(bad);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().diag.message.find("two hex digits") != std::string::npos);
  }
  auto r = decode_event_key("%C3");  // half a character
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().diag.message.find("UTF-8") != std::string::npos);
  CHECK_FALSE(decode_event_key("%FF").has_value());
}

TEST_CASE("a body that is none of these is an error with a reason") {
  CHECK(reason_of("").find("not JSON") != std::string::npos);
  CHECK(reason_of("hello").find("not JSON") != std::string::npos);
  CHECK(reason_of("[1,2]").find("not a JSON object") != std::string::npos);
  CHECK(reason_of("{}").find("no Records, Type, detail-type or Event") != std::string::npos);
  CHECK(reason_of(R"({"Records": {}})").find("Records: not an array") != std::string::npos);
  CHECK(reason_of(R"({"Records": []})").find("Records: empty") != std::string::npos);
  CHECK(reason_of(R"({"Records": [1]})").find("Records[0]: not an object") != std::string::npos);
  std::string const rec_head = R"({"Records": [{"eventSource": "aws:s3", "eventName": "ObjectCreated:Put", "s3": )";
  CHECK(reason_of(rec_head + R"({"bucket": {"name": "b"}}}]})").find("Records[0].s3.object: missing") !=
        std::string::npos);
  CHECK(reason_of(rec_head + R"({"bucket": {"name": "b"}, "object": {"key": "a%zz"}}}]})")
            .find("Records[0].s3.object.key: '%' at byte 1") != std::string::npos);
  CHECK(reason_of(rec_head + R"({"bucket": {"name": "b"}, "object": {"key": ""}}}]})")
            .find("Records[0].s3.object.key: empty") != std::string::npos);
  CHECK(reason_of(rec_head + R"({"bucket": {"name": "b"}, "object": {"key": "k", "size": -1}}}]})")
            .find("size: not a non-negative integer") != std::string::npos);
  CHECK(reason_of(rec_head + R"({"bucket": {"name": "b"}, "object": {"key": "k", "size": 1.5}}}]})")
            .find("size") != std::string::npos);
  CHECK(reason_of(rec_head + R"({"bucket": {"name": 7}, "object": {"key": "k"}}}]})")
            .find("s3.bucket.name: not a string") != std::string::npos);
  CHECK(reason_of(rec_head + R"({"bucket": {"name": "a/b"}, "object": {"key": "k"}}}]})").find("contains '/'") !=
        std::string::npos);
  CHECK(reason_of(R"({"Records": [{"eventSource": "aws:dynamodb", "eventName": "INSERT"}]})")
            .find("eventSource: not aws:s3") != std::string::npos);
  CHECK(reason_of(R"({"Records": [{"s3": {}}]})").find("eventName: missing") != std::string::npos);
  CHECK(reason_of(R"({"Event": "s3:Other"})").find("not s3:TestEvent") != std::string::npos);
  CHECK(reason_of(R"({"Type": "SubscriptionConfirmation", "Message": "x"})").find("not a Notification") !=
        std::string::npos);
  CHECK(reason_of(R"({"Type": "Notification", "Message": "Hello world!"})").find("Message: the SNS Message is not JSON") !=
        std::string::npos);
  CHECK(reason_of(R"({"Type": "Notification"})").find("Message: missing") != std::string::npos);
  CHECK(reason_of(R"({"Type": "Notification", "Message": "{\"Type\": \"Notification\", \"Message\": \"{}\"}"})")
            .find("SNS envelope inside") != std::string::npos);
  CHECK(reason_of(R"({"source": "aws.ec2", "detail-type": "EC2 Instance State-change Notification", "detail": {}})")
            .find("not aws.s3") != std::string::npos);
  CHECK(reason_of(R"({"source": "aws.s3", "detail-type": "Object Created", "detail": {"bucket": {"name": "b"}}})")
            .find("detail.object: missing") != std::string::npos);
  // Whatever is wrong, the reason never carries the body's bytes beyond a short excerpt.
  std::string const long_type(5000, 'x');
  CHECK(reason_of(R"({"Type": ")" + long_type + R"(", "Message": "{}"})").size() < 400);
}

TEST_CASE("bounds: body size, record count, field lengths") {
  std::string big(1024 * 1024 + 1, ' ');
  auto r = parse_event_message(big);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code == floe::make_error_code(errc::reply_too_large));

  std::string recs = R"({"Records": [)";
  for (int i = 0; i < 3; ++i) {
    if (i) recs += ",";
    recs += R"({"eventName": "ObjectCreated:Put", "s3": {"bucket": {"name": "b"}, "object": {"key": "k)" +
            std::to_string(i) + R"("}}})";
  }
  recs += "]}";
  event_limits lim;
  lim.max_records = 2;
  auto over = parse_event_message(recs, lim);
  REQUIRE_FALSE(over.has_value());
  CHECK(over.error().diag.message.find("more than 2 records") != std::string::npos);
  auto ok = parse_event_message(recs);
  REQUIRE(ok.has_value());
  CHECK(ok->events.size() == 3);
  CHECK(ok->events[2].key == "k2");

  std::string const long_key(1025, 'k');
  CHECK(reason_of(R"({"Records": [{"eventName": "ObjectCreated:Put", "s3": {"bucket": {"name": "b"}, "object": {"key": ")" +
                  long_key + R"("}}}]})")
            .find("longer than 1024 bytes") != std::string::npos);
  // 1024 bytes once decoded is fine even when the encoded form is longer.
  std::string enc;
  for (int i = 0; i < 512; ++i) enc += "%C3%A9";
  auto fine = parse_event_message(R"({"Records": [{"eventName": "ObjectCreated:Put", "s3": {"bucket": {"name": "b"}, "object": {"key": ")" +
                                  enc + R"("}}}]})");
  REQUIRE(fine.has_value());
  CHECK(fine->events[0].key.size() == 1024);
}

TEST_CASE("quoted ETags lose their quotes; unknown members are ignored") {
  auto m = parse_ok(R"({"Records": [{"eventName": "ObjectCreated:Post", "extra": [1, {"x": null}],
     "s3": {"bucket": {"name": "b"}, "object": {"key": "k", "eTag": "\"abc\"", "versionId": null}}}]})");
  REQUIRE(m.events.size() == 1);
  CHECK(m.events[0].etag == "abc");
  CHECK(m.events[0].version_id.empty());
  CHECK(wants_action(m.events[0]));
}

}  // namespace watch_event_test
