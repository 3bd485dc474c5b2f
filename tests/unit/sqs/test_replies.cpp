// Reply parsing (sqs/queues.hpp, messages.hpp, batches.hpp) on moto 5.2.1's
// own replies (tests/data/sqs/moto/), on those replies altered (a body or
// an MD5 changed, an entry dropped), and on malformed ones.

#include "sqs_data.hpp"

#include <floe/sqs/protocol.hpp>

#include <doctest/doctest.h>

#include <string>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace sqs_replies_test {

using namespace floe::sqs;
using namespace std::chrono_literals;
using floe::errc;

namespace {

std::string const url = "http://127.0.0.1:1/123456789012/floe-q";

std::string ok_body(char const* capture_name) {
  auto const c = sqs_test::moto(capture_name);
  REQUIRE(c.r.status == 200);
  return c.r.body;
}

std::string replaced(std::string s, std::string_view from, std::string_view to) {
  auto const at = s.find(from);
  REQUIRE_MESSAGE(at != std::string::npos, "'", from, "' not in the reply");
  s.replace(at, from.size(), to);
  return s;
}

template <class P>
std::string malformed(P const& p, std::string const& body) {
  auto r = parse_reply(p, body);
  REQUIRE_MESSAGE(r.has_error(), "accepted: ", body);
  CHECK(r.error().code == errc::malformed_reply);
  return r.error().diag.message;
}

// The batch params of a capture's request (ids and bodies as sent).
send_message_batch_params sent_batch() {
  auto const c = sqs_test::moto("send-message-batch");
  simdjson::dom::parser p;
  simdjson::dom::element e;
  REQUIRE(p.parse(c.request_body).get(e) == simdjson::SUCCESS);
  send_message_batch_params b;
  b.queue_url = url;
  simdjson::dom::array entries;
  REQUIRE(e["Entries"].get(entries) == simdjson::SUCCESS);
  for (auto entry : entries) {
    b.entries.push_back({.id = std::string(entry["Id"].get_string().value()),
                         .body = std::string(entry["MessageBody"].get_string().value())});
  }
  return b;
}

}  // namespace

TEST_CASE("queue replies: URLs, attributes, and the empty object of operations that return nothing") {
  auto created = parse_reply(create_queue_params{}, ok_body("create-queue"));
  REQUIRE(created.has_value());
  CHECK(created->queue_url.starts_with("http://127.0.0.1:"));
  CHECK(created->queue_url.ends_with("/123456789012/floe-q"));
  auto fifo = parse_reply(create_queue_params{}, ok_body("create-queue-fifo"));
  REQUIRE(fifo.has_value());
  CHECK(queue_name_of(fifo->queue_url) == "floe-q.fifo");
  auto found = parse_reply(get_queue_url_params{}, ok_body("get-queue-url"));
  REQUIRE(found.has_value());
  CHECK(found->queue_url == created->queue_url);

  auto all = parse_reply(get_queue_attributes_params{}, ok_body("get-queue-attributes-all"));
  REQUIRE(all.has_value());
  CHECK(all->find("VisibilityTimeout") == "30");
  CHECK(all->find("QueueArn") == "arn:aws:sqs:us-east-1:123456789012:floe-q");
  CHECK(all->find("MaximumMessageSize") == "1048576");
  CHECK(all->find("NoSuchAttribute").empty());
  auto some = parse_reply(get_queue_attributes_params{}, ok_body("get-queue-attributes-some"));
  REQUIRE(some.has_value());
  CHECK(some->attributes.size() == 2);
  auto none = parse_reply(get_queue_attributes_params{}, "{}");
  REQUIRE(none.has_value());
  CHECK(none->attributes.empty());

  CHECK(parse_reply(set_queue_attributes_params{}, ok_body("set-queue-attributes")).has_value());
  CHECK(parse_reply(purge_queue_params{}, ok_body("purge-queue")).has_value());
  CHECK(parse_reply(delete_queue_params{}, ok_body("delete-queue")).has_value());
  CHECK(parse_reply(delete_message_params{}, ok_body("delete-message")).has_value());
  CHECK(parse_reply(change_message_visibility_params{}, ok_body("change-message-visibility")).has_value());
  CHECK(parse_reply(delete_queue_params{}, "").has_value());  // a server may send no body at all
  CHECK(parse_reply(delete_queue_params{}, " \r\n").has_value());
}

TEST_CASE("a send is accepted only when SQS's MD5OfMessageBody is the MD5 of the body sent") {
  send_message_params p{.queue_url = url, .body = "hello floe"};
  auto r = parse_reply(p, ok_body("send-message"));
  REQUIRE(r.has_value());
  CHECK(r->message_id.size() == 36);
  CHECK(r->md5_of_body == "69424413137493d1f3f64be05060f2a8");
  CHECK(r->sequence_number.empty());

  p.body = "hello flow";
  auto bad = parse_reply(p, ok_body("send-message"));
  REQUIRE(bad.has_error());
  CHECK(bad.error().code == errc::checksum_mismatch);
  auto const& m = bad.error().diag.message;
  CHECK(m.find("69424413137493d1f3f64be05060f2a8") != std::string::npos);  // SQS's
  CHECK(m.find(md5_hex("hello flow")) != std::string::npos);              // ours
  CHECK(m.find(r->message_id) != std::string::npos);

  auto const unicode = sqs_test::moto("send-message-unicode");
  simdjson::dom::parser jp;
  std::string const body(jp.parse(unicode.request_body).value()["MessageBody"].get_string().value());
  CHECK(body.find("\xf0\x9f\x98\x80") != std::string::npos);
  CHECK(parse_reply(send_message_params{.queue_url = url, .body = body}, unicode.r.body).has_value());

  auto seq = parse_reply(send_message_params{.queue_url = url, .body = "fifo body"}, ok_body("send-message-fifo"));
  REQUIRE(seq.has_value());
  CHECK(seq->sequence_number == "85574519596702838626");
}

TEST_CASE("received messages keep their bodies exactly, with the system attributes asked for") {
  auto r = parse_reply(receive_message_params{}, ok_body("receive-message-all"));
  REQUIRE(r.has_value());
  CHECK(r->rejected.empty());
  REQUIRE(r->messages.size() == 4);
  CHECK(r->messages[0].body == "hello floe");
  CHECK(r->messages[1].body ==
        "line 1\nline 2\r\n\ttab \"quoted\" \\ back\xc3\xa9\xe4\xb8\x96\xe7\x95\x8c\xf0\x9f\x98\x80 end");
  CHECK(r->messages[2].body == "first");
  CHECK(r->messages[3].body == "second \xc3\xbc\xf0\x9f\x9a\x80");
  for (auto const& m : r->messages) {
    CHECK(md5_matches(m.md5_of_body, m.body));
    CHECK(m.receipt_handle.size() == 185);
    CHECK(m.receive_count() == 1u);
    CHECK(m.attribute("SenderId") == "AIDAIT2UOQQY3AUEKVGXU");
    REQUIRE(m.sent_time().has_value());
    REQUIRE(m.first_receive_time().has_value());
    CHECK(*m.first_receive_time() >= *m.sent_time());
  }
  auto const sent_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
      r->messages[0].sent_time()->time_since_epoch());
  CHECK(std::to_string(sent_ms.count()) == r->messages[0].attribute("SentTimestamp"));

  auto legacy = parse_reply(receive_message_params{}, ok_body("receive-message-legacy-attribute-names"));
  REQUIRE(legacy.has_value());
  REQUIRE(legacy->messages.size() == 2);
  CHECK(legacy->messages[0].receive_count() == 2u);
  CHECK(legacy->messages[0].attributes.size() == 2);  // only what was asked for
  CHECK_FALSE(legacy->messages[0].first_receive_time().has_value());

  auto fifo = parse_reply(receive_message_params{}, ok_body("receive-message-fifo"));
  REQUIRE(fifo.has_value());
  REQUIRE(fifo->messages.size() == 1);
  CHECK(fifo->messages[0].attribute("MessageGroupId") == "g1");
  CHECK(fifo->messages[0].attribute("MessageDeduplicationId") == "d1");

  auto empty = parse_reply(receive_message_params{}, ok_body("receive-message-empty"));
  REQUIRE(empty.has_value());
  CHECK(empty->messages.empty());
  CHECK(empty->rejected.empty());
}

TEST_CASE("a received body that does not match its MD5OfBody is rejected, never handed over") {
  auto const body = replaced(ok_body("receive-message-all"), "\"Body\": \"first\"", "\"Body\": \"firsT\"");
  auto r = parse_reply(receive_message_params{}, body);
  REQUIRE(r.has_value());
  REQUIRE(r->messages.size() == 3);
  for (auto const& m : r->messages) CHECK(m.body != "firsT");
  REQUIRE(r->rejected.size() == 1);
  CHECK(r->rejected[0].receipt_handle.size() == 185);
  CHECK(r->rejected[0].message_id.size() == 36);
  CHECK(r->rejected[0].reason.find(md5_hex("firsT")) != std::string::npos);
  CHECK(r->rejected[0].reason.find("8b04d5e3775d298e78455efc5ca404d5") != std::string::npos);
}

TEST_CASE("batch replies report entry by entry, SenderFault as a boolean or as moto's string") {
  auto const p = sent_batch();
  REQUIRE(p.entries.size() == 3);
  auto r = parse_reply(p, ok_body("send-message-batch"));
  REQUIRE(r.has_value());
  REQUIRE(r->successful.size() == 2);
  CHECK(r->successful[0].id == "a");
  CHECK(r->successful[1].id == "b");
  CHECK(r->successful[1].md5_of_body == md5_hex(p.entries[1].body));
  REQUIRE(r->failed.size() == 1);
  CHECK(r->failed[0].id == "c");
  CHECK(r->failed[0].code == "InvalidParameterValue");
  CHECK(r->failed[0].sender_fault);  // "true", a string, from moto
  CHECK_FALSE(r->failed[0].client_detected);
  CHECK(r->failed[0].message.find("DelaySeconds") != std::string::npos);

  auto const dm = sqs_test::moto("delete-message-batch");
  auto d = parse_reply(delete_message_batch_params{.queue_url = url, .entries = {{"ok", "h1"}, {"bad", "h2"}}},
                       dm.r.body);
  REQUIRE(d.has_value());
  CHECK(d->successful == std::vector<std::string>{"ok"});
  REQUIRE(d->failed.size() == 1);
  CHECK(d->failed[0].id == "bad");
  CHECK(d->failed[0].code == "ReceiptHandleIsInvalid");
  CHECK(d->failed[0].sender_fault);  // true, a boolean

  auto c = parse_reply(change_message_visibility_batch_params{.queue_url = url,
                                                              .entries = {{"ok", "h1", 0s}, {"bad", "h2", 60s}}},
                       ok_body("change-message-visibility-batch"));
  REQUIRE(c.has_value());
  CHECK(c->successful == std::vector<std::string>{"ok"});
  REQUIRE(c->failed.size() == 1);
  CHECK(c->failed[0].code == "ReceiptHandleIsInvalid");
}

TEST_CASE("a batch entry with a wrong MD5 or left out of the reply is a failure floe reports") {
  auto p = sent_batch();
  p.entries[1].body = "second, altered";
  p.entries.push_back({.id = "d", .body = "never mentioned"});
  auto r = parse_reply(p, ok_body("send-message-batch"));
  REQUIRE(r.has_value());
  REQUIRE(r->successful.size() == 1);
  CHECK(r->successful[0].id == "a");
  REQUIRE(r->failed.size() == 3);
  CHECK(r->failed[0].id == "b");
  CHECK(r->failed[0].code == "MD5OfMessageBodyMismatch");
  CHECK(r->failed[0].client_detected);
  CHECK_FALSE(r->failed[0].sender_fault);
  CHECK(r->failed[1].id == "c");
  CHECK_FALSE(r->failed[1].client_detected);
  CHECK(r->failed[2].id == "d");
  CHECK(r->failed[2].code == "MissingFromReply");
  CHECK(r->failed[2].client_detected);
  // Every entry is in exactly one list.
  CHECK(r->successful.size() + r->failed.size() == p.entries.size());

  auto none = parse_reply(delete_message_batch_params{.queue_url = url, .entries = {{"x", "h"}}}, "{}");
  REQUIRE(none.has_value());
  CHECK(none->successful.empty());
  REQUIRE(none->failed.size() == 1);
  CHECK(none->failed[0].code == "MissingFromReply");
}

TEST_CASE("a batch reply naming an Id the request did not have, or one Id twice, is malformed") {
  auto p = sent_batch();
  p.entries.pop_back();  // no "c" any more, which the reply fails
  CHECK(malformed(p, ok_body("send-message-batch")).find("Failed[0]: Id 'c' is not an entry of the request") !=
        std::string::npos);
  delete_message_batch_params d{.queue_url = url, .entries = {{"a", "h"}}};
  CHECK(malformed(d, R"({"Successful":[{"Id":"a"}],"Failed":[{"Id":"a","Code":"X","SenderFault":false}]})")
            .find("Failed[0]: Id 'a' is listed twice") != std::string::npos);
  CHECK(malformed(d, R"({"Successful":[{"Id":"a"},{"Id":"a"}]})").find("listed twice") != std::string::npos);
  CHECK(malformed(d, R"({"Successful":{"Id":"a"}})").find("Successful is not an array") != std::string::npos);
  CHECK(malformed(d, R"({"Successful":["a"]})").find("Successful[0] is not an object") != std::string::npos);
  CHECK(malformed(d, R"({"Failed":[{"Id":"a"}]})").find("Failed[0]: no Code") != std::string::npos);
  CHECK(malformed(d, R"({"Failed":[{"Id":"a","Code":"X","SenderFault":"maybe"}]})")
            .find("SenderFault is neither true nor false") != std::string::npos);
  CHECK(malformed(d, R"({"Successful":[{"Id":1}]})").find("Id is not a string") != std::string::npos);
  CHECK(malformed(d, "").find("the body is empty") != std::string::npos);
  CHECK(malformed(send_message_batch_params{.entries = {{.id = "a", .body = "x"}}},
                  R"({"Successful":[{"Id":"a","MessageId":"m"}]})")
            .find("Successful[0]: no MD5OfMessageBody") != std::string::npos);
}

TEST_CASE("malformed single-operation replies are errors naming what is wrong") {
  CHECK(malformed(create_queue_params{}, "<html>502</html>").find("SQS CreateQueue reply: not JSON") == 0);
  CHECK(malformed(create_queue_params{}, "[]") == "SQS CreateQueue reply: not a JSON object");
  CHECK(malformed(create_queue_params{}, "{}") == "SQS CreateQueue reply: no QueueUrl");
  CHECK(malformed(get_queue_url_params{}, R"({"QueueUrl":""})") == "SQS GetQueueUrl reply: QueueUrl is empty");
  CHECK(malformed(get_queue_url_params{}, R"({"QueueUrl":"a","QueueUrl":"b"})") ==
        "SQS GetQueueUrl reply: QueueUrl appears twice");
  CHECK(malformed(get_queue_attributes_params{}, R"({"Attributes":{"A":1}})") ==
        "SQS GetQueueAttributes reply: Attributes.A is not a string");
  CHECK(malformed(get_queue_attributes_params{}, R"({"Attributes":{"A":"1","A":"2"}})") ==
        "SQS GetQueueAttributes reply: Attributes.A appears twice");
  CHECK(malformed(send_message_params{.body = "x"}, R"({"MessageId":"m"})") ==
        "SQS SendMessage reply: no MD5OfMessageBody");
  CHECK(malformed(delete_message_params{}, "not json").find("SQS DeleteMessage reply: not JSON") == 0);
  CHECK(malformed(purge_queue_params{}, "[1]") == "SQS PurgeQueue reply: not a JSON object");

  receive_message_params const rp;
  CHECK(malformed(rp, R"({"Messages":{}})") == "SQS ReceiveMessage reply: Messages is not an array");
  CHECK(malformed(rp, R"({"Messages":[1]})") == "SQS ReceiveMessage reply: Messages[0] is not an object");
  CHECK(malformed(rp, R"({"Messages":[{"MessageId":"m","MD5OfBody":"d41d8cd98f00b204e9800998ecf8427e","Body":""}]})") ==
        "SQS ReceiveMessage reply: Messages[0]: no ReceiptHandle");
  std::string const two_bodies =
      R"({"Messages":[{"MessageId":"m","ReceiptHandle":"h","MD5OfBody":"d41d8cd98f00b204e9800998ecf8427e",)"
      R"("Body":"","Body":"x"}]})";
  CHECK(malformed(rp, two_bodies) == "SQS ReceiveMessage reply: Messages[0]: Body appears twice");
  std::string const bad_attrs =
      R"({"Messages":[{"MessageId":"m","ReceiptHandle":"h","MD5OfBody":"d41d8cd98f00b204e9800998ecf8427e",)"
      R"("Body":"","Attributes":[]}]})";
  CHECK(malformed(rp, bad_attrs) == "SQS ReceiveMessage reply: Messages[0].Attributes is not an object");

  auto big = parse_reply(rp, std::string(max_reply_bytes + 1, ' '));
  REQUIRE(big.has_error());
  CHECK(big.error().code == errc::reply_too_large);
}

TEST_CASE("members a parser does not know are skipped") {
  auto r = parse_reply(get_queue_url_params{}, R"({"QueueUrl":"http://h/1/q","NewField":{"x":[1,2]}})");
  REQUIRE(r.has_value());
  CHECK(r->queue_url == "http://h/1/q");
}

}  // namespace sqs_replies_test
