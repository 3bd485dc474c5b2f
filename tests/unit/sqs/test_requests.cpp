// Request bodies (sqs/queues.hpp, messages.hpp, batches.hpp): each built
// from the values of a request sent to moto 5.2.1 must equal that request
// as JSON (tests/data/sqs/moto/), and bad arguments are refused naming
// what is wrong.

#include "sqs_data.hpp"

#include <floe/sqs/protocol.hpp>

#include <doctest/doctest.h>

#include <string>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace sqs_requests_test {

using namespace floe::sqs;
using namespace std::chrono_literals;
using floe::errc;

namespace {

// The string member `name` of the captured request.
std::string field(sqs_test::capture const& c, char const* name) {
  simdjson::dom::parser p;
  simdjson::dom::element e;
  REQUIRE(p.parse(c.request_body).get(e) == simdjson::SUCCESS);
  std::string_view v;
  REQUIRE(e[name].get(v) == simdjson::SUCCESS);
  return std::string(v);
}

// The receipt handles of the captured batch request, in order.
std::vector<std::string> handles(sqs_test::capture const& c) {
  simdjson::dom::parser p;
  simdjson::dom::element e;
  REQUIRE(p.parse(c.request_body).get(e) == simdjson::SUCCESS);
  std::vector<std::string> out;
  simdjson::dom::array entries;
  REQUIRE(e["Entries"].get(entries) == simdjson::SUCCESS);
  for (auto entry : entries) out.emplace_back(entry["ReceiptHandle"].get_string().value());
  return out;
}

template <class P>
void same_as_moto(P const& p, char const* capture_name) {
  auto const c = sqs_test::moto(capture_name);
  auto req = build_request(p);
  REQUIRE_MESSAGE(req.has_value(), req.error().what());
  CHECK(req->operation == P::operation);
  CHECK(req->target == c.target);
  CHECK(c.operation == P::operation);
  CHECK_MESSAGE(sqs_test::same_json(req->body, c.request_body), "floe: ", req->body, "\nmoto capture: ",
                c.request_body);
}

template <class P>
std::string refused(P const& p) {
  auto req = build_request(p);
  REQUIRE_MESSAGE(req.has_error(), "accepted: ", req->body);
  CHECK(req.error().code == errc::invalid_argument);
  return req.error().diag.message;
}

bool has(std::string const& s, std::string_view part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("every request is POST / with X-Amz-Target AmazonSQS.<Operation> and a JSON 1.0 body") {
  CHECK(json_content_type == "application/x-amz-json-1.0");
  CHECK(request_method == "POST");
  CHECK(request_path == "/");
  CHECK(signing_name == "sqs");
  auto req = build_request(purge_queue_params{.queue_url = "http://h/1/q"});
  REQUIRE(req.has_value());
  CHECK(req->target == "AmazonSQS.PurgeQueue");
  CHECK(req->body == R"({"QueueUrl":"http://h/1/q"})");
}

TEST_CASE("queue operations build the bodies moto was sent") {
  auto const url = field(sqs_test::moto("get-queue-attributes-all"), "QueueUrl");
  same_as_moto(create_queue_params{.queue_name = "floe-q", .attributes = {{"VisibilityTimeout", "30"}}},
               "create-queue");
  same_as_moto(create_queue_params{.queue_name = "floe-q.fifo",
                                   .attributes = {{"FifoQueue", "true"}, {"ContentBasedDeduplication", "true"}}},
               "create-queue-fifo");
  same_as_moto(get_queue_url_params{.queue_name = "floe-q"}, "get-queue-url");
  same_as_moto(get_queue_attributes_params{.queue_url = url}, "get-queue-attributes-all");  // none named: All
  same_as_moto(get_queue_attributes_params{.queue_url = url, .attribute_names = {"All"}}, "get-queue-attributes-all");
  same_as_moto(get_queue_attributes_params{.queue_url = url,
                                           .attribute_names = {"ApproximateNumberOfMessages", "VisibilityTimeout"}},
               "get-queue-attributes-some");
  same_as_moto(set_queue_attributes_params{.queue_url = url,
                                           .attributes = {{"VisibilityTimeout", "45"},
                                                          {"ReceiveMessageWaitTimeSeconds", "0"}}},
               "set-queue-attributes");
  same_as_moto(purge_queue_params{.queue_url = url}, "purge-queue");
  same_as_moto(delete_queue_params{.queue_url = url}, "delete-queue");
}

TEST_CASE("message operations build the bodies moto was sent") {
  auto const url = field(sqs_test::moto("send-message"), "QueueUrl");
  same_as_moto(send_message_params{.queue_url = url, .body = "hello floe"}, "send-message");
  auto const unicode = sqs_test::moto("send-message-unicode");
  same_as_moto(send_message_params{.queue_url = url, .body = field(unicode, "MessageBody")}, "send-message-unicode");
  auto const fifo = sqs_test::moto("send-message-fifo");
  same_as_moto(send_message_params{.queue_url = field(fifo, "QueueUrl"),
                                   .body = "fifo body",
                                   .message_group_id = "g1",
                                   .message_deduplication_id = "d1"},
               "send-message-fifo");
  same_as_moto(receive_message_params{.queue_url = url,
                                      .max_messages = 10,
                                      .wait = 0s,
                                      .visibility_timeout = 30s,
                                      .system_attribute_names = {"All"}},
               "receive-message-all");
  same_as_moto(receive_message_params{.queue_url = url, .max_messages = 10, .wait = 1s}, "receive-message-empty");
  same_as_moto(receive_message_params{.queue_url = url,
                                      .max_messages = 10,
                                      .visibility_timeout = 30s,
                                      .system_attribute_names = {"ApproximateReceiveCount", "SentTimestamp"},
                                      .names_field = attribute_names_field::legacy},
               "receive-message-legacy-attribute-names");
  auto const cv = sqs_test::moto("change-message-visibility");
  same_as_moto(change_message_visibility_params{.queue_url = url,
                                                .receipt_handle = field(cv, "ReceiptHandle"),
                                                .visibility_timeout = 0s},
               "change-message-visibility");
  auto const dm = sqs_test::moto("delete-message");
  same_as_moto(delete_message_params{.queue_url = url, .receipt_handle = field(dm, "ReceiptHandle")},
               "delete-message");
}

TEST_CASE("batch operations build the bodies moto was sent") {
  auto const url = field(sqs_test::moto("send-message"), "QueueUrl");
  auto const dmb = handles(sqs_test::moto("delete-message-batch"));
  REQUIRE(dmb.size() == 2);
  same_as_moto(delete_message_batch_params{.queue_url = url,
                                           .entries = {{"ok", dmb[0]}, {"bad", dmb[1]}}},
               "delete-message-batch");
  auto const cvb = handles(sqs_test::moto("change-message-visibility-batch"));
  REQUIRE(cvb.size() == 2);
  same_as_moto(change_message_visibility_batch_params{.queue_url = url,
                                                      .entries = {{"ok", cvb[0], 0s}, {"bad", cvb[1], 60s}}},
               "change-message-visibility-batch");
  // moto's own capture had a third entry with DelaySeconds 1800, which floe refuses (below).
  auto req = build_request(send_message_batch_params{
      .queue_url = url,
      .entries = {{.id = "a", .body = "first"}, {.id = "b", .body = "second \xc3\xbc\xf0\x9f\x9a\x80", .delay = 900s}}});
  REQUIRE(req.has_value());
  CHECK(sqs_test::same_json(
      req->body, "{\"QueueUrl\":\"" + url +
                     "\",\"Entries\":[{\"Id\":\"a\",\"MessageBody\":\"first\"},"
                     "{\"Id\":\"b\",\"MessageBody\":\"second \\u00fc\\ud83d\\ude80\",\"DelaySeconds\":900}]}"));
}

TEST_CASE("both system attribute fields are sent when asked, for servers of either age") {
  auto req = build_request(receive_message_params{.queue_url = "http://h/1/q",
                                                  .system_attribute_names = {"ApproximateReceiveCount"},
                                                  .names_field = attribute_names_field::both});
  REQUIRE(req.has_value());
  CHECK(req->body == R"({"QueueUrl":"http://h/1/q","MaxNumberOfMessages":1,)"
                     R"("MessageSystemAttributeNames":["ApproximateReceiveCount"],)"
                     R"("AttributeNames":["ApproximateReceiveCount"]})");
}

TEST_CASE("a missing or malformed queue URL is refused by every operation that carries one") {
  CHECK(refused(delete_queue_params{}) == "SQS DeleteQueue: the queue URL is empty");
  CHECK(refused(purge_queue_params{}) == "SQS PurgeQueue: the queue URL is empty");
  CHECK(refused(get_queue_attributes_params{}) == "SQS GetQueueAttributes: the queue URL is empty");
  CHECK(has(refused(set_queue_attributes_params{.attributes = {{"A", "1"}}}), "queue URL is empty"));
  CHECK(has(refused(send_message_params{.body = "x"}), "SendMessage: the queue URL is empty"));
  CHECK(has(refused(receive_message_params{}), "ReceiveMessage: the queue URL is empty"));
  CHECK(has(refused(delete_message_params{.receipt_handle = "h"}), "queue URL is empty"));
  CHECK(has(refused(change_message_visibility_params{.receipt_handle = "h"}), "queue URL is empty"));
  CHECK(has(refused(send_message_batch_params{.entries = {{.id = "a", .body = "x"}}}), "queue URL is empty"));
  CHECK(has(refused(delete_message_batch_params{.entries = {{"a", "h"}}}), "queue URL is empty"));
  CHECK(has(refused(change_message_visibility_batch_params{.entries = {{"a", "h", 1s}}}), "queue URL is empty"));
  CHECK(has(refused(purge_queue_params{.queue_url = "orders"}), "does not start with http://"));
}

TEST_CASE("queue operation arguments are checked") {
  CHECK(has(refused(create_queue_params{.queue_name = "bad name"}), "SQS CreateQueue: queue name 'bad name'"));
  CHECK(has(refused(create_queue_params{.queue_name = "q", .attributes = {{"", "1"}}}), "empty attribute name"));
  CHECK(has(refused(create_queue_params{.queue_name = "q", .attributes = {{"Visibility Timeout", "1"}}}),
            "attribute name 'Visibility Timeout' may hold only letters and digits"));
  CHECK(has(refused(create_queue_params{.queue_name = "q", .attributes = {{"A", "bad \xff"}}}),
            "the value of A is not valid UTF-8"));
  CHECK(has(refused(get_queue_url_params{}), "the queue name is empty"));
  CHECK(has(refused(get_queue_url_params{.queue_name = "q", .owner_account_id = "12345"}), "is not 12 digits"));
  auto other = build_request(get_queue_url_params{.queue_name = "q", .owner_account_id = "111122223333"});
  REQUIRE(other.has_value());
  CHECK(other->body == R"({"QueueName":"q","QueueOwnerAWSAccountId":"111122223333"})");
  CHECK(has(refused(set_queue_attributes_params{.queue_url = "http://h/1/q"}), "no attributes to set"));
  CHECK(has(refused(get_queue_attributes_params{.queue_url = "http://h/1/q", .attribute_names = {"All", ""}}),
            "empty attribute name"));
}

TEST_CASE("send arguments are checked: body, delay, FIFO ids") {
  std::string const url = "http://h/1/q";
  CHECK(has(refused(send_message_params{.queue_url = url}), "SendMessage: MessageBody is empty"));
  CHECK(has(refused(send_message_params{.queue_url = url, .body = std::string(default_max_message_bytes + 1, 'x')}),
            "MessageBody is 262145 bytes, more than the limit of 262144 bytes"));
  CHECK(build_request(send_message_params{.queue_url = url,
                                          .body = std::string(default_max_message_bytes + 1, 'x'),
                                          .max_body_bytes = service_max_message_bytes})
            .has_value());
  CHECK(has(refused(send_message_params{.queue_url = url, .body = std::string("a\x01", 2)}),
            "MessageBody holds U+0001 at byte 1"));
  CHECK(has(refused(send_message_params{.queue_url = url, .body = "\xff"}), "not valid UTF-8"));
  CHECK(has(refused(send_message_params{.queue_url = url, .body = "x", .delay = 901s}),
            "DelaySeconds of 901 s is outside 0..900 s"));
  CHECK(has(refused(send_message_params{.queue_url = url, .body = "x", .delay = -1s}), "outside 0..900"));
  CHECK(has(refused(send_message_params{.queue_url = url, .body = "x", .message_group_id = "a b"}),
            "MessageGroupId 'a b' may hold only letters, digits and punctuation"));
  CHECK(has(refused(send_message_params{.queue_url = url, .body = "x", .message_deduplication_id = std::string(129, 'd')}),
            "MessageDeduplicationId is longer than 128 characters"));
  auto delayed = build_request(send_message_params{.queue_url = url, .body = "x", .delay = 0s});
  REQUIRE(delayed.has_value());
  CHECK(delayed->body == R"({"QueueUrl":"http://h/1/q","MessageBody":"x","DelaySeconds":0})");
}

TEST_CASE("receive arguments are checked: count, wait, visibility, attribute names") {
  std::string const url = "http://h/1/q";
  CHECK(has(refused(receive_message_params{.queue_url = url, .max_messages = 0}),
            "MaxNumberOfMessages of 0 is outside 1..10"));
  CHECK(has(refused(receive_message_params{.queue_url = url, .max_messages = 11}),
            "MaxNumberOfMessages of 11 is outside 1..10"));
  CHECK(has(refused(receive_message_params{.queue_url = url, .wait = 21s}), "WaitTimeSeconds of 21 s is outside 0..20 s"));
  CHECK(has(refused(receive_message_params{.queue_url = url, .visibility_timeout = 43201s}),
            "VisibilityTimeout of 43201 s is outside 0..43200 s"));
  CHECK(has(refused(receive_message_params{.queue_url = url, .system_attribute_names = {"ApproximateRecieveCount"}}),
            "unknown message system attribute 'ApproximateRecieveCount'"));
  CHECK(has(refused(receive_message_params{.queue_url = url, .receive_request_attempt_id = "a b"}),
            "ReceiveRequestAttemptId"));
  auto edge = build_request(receive_message_params{.queue_url = url,
                                                   .max_messages = 10,
                                                   .wait = 20s,
                                                   .visibility_timeout = 43200s,
                                                   .receive_request_attempt_id = "try-1"});
  REQUIRE(edge.has_value());
  CHECK(edge->body == R"({"QueueUrl":"http://h/1/q","MaxNumberOfMessages":10,"WaitTimeSeconds":20,)"
                      R"("VisibilityTimeout":43200,"ReceiveRequestAttemptId":"try-1"})");
}

TEST_CASE("receipt handles and visibility timeouts are checked") {
  std::string const url = "http://h/1/q";
  CHECK(has(refused(delete_message_params{.queue_url = url}), "DeleteMessage: the receipt handle is empty"));
  CHECK(has(refused(delete_message_params{.queue_url = url, .receipt_handle = "a\nb"}), "control character"));
  CHECK(has(refused(change_message_visibility_params{.queue_url = url, .receipt_handle = "h", .visibility_timeout = 43201s}),
            "VisibilityTimeout of 43201 s"));
  CHECK(has(refused(change_message_visibility_params{.queue_url = url}), "receipt handle is empty"));
}

TEST_CASE("batches need 1 to 10 entries with distinct, well-formed Ids") {
  std::string const url = "http://h/1/q";
  CHECK(has(refused(send_message_batch_params{.queue_url = url}),
            "SQS SendMessageBatch: the batch has no entries (1 to 10 are needed)"));
  std::vector<send_message_batch_entry> eleven;
  for (int i = 0; i < 11; ++i) eleven.push_back({.id = "e" + std::to_string(i), .body = "x"});
  CHECK(has(refused(send_message_batch_params{.queue_url = url, .entries = eleven}),
            "the batch has 11 entries; SQS takes at most 10"));
  eleven.pop_back();
  CHECK(build_request(send_message_batch_params{.queue_url = url, .entries = eleven}).has_value());
  CHECK(has(refused(send_message_batch_params{.queue_url = url, .entries = {{.id = "same", .body = "1"},
                                                                           {.id = "same", .body = "2"}}}),
            "batch entry Id 'same' is used twice"));
  CHECK(has(refused(delete_message_batch_params{.queue_url = url, .entries = {{"a", "h1"}, {"a", "h2"}}}),
            "'a' is used twice"));
  CHECK(has(refused(change_message_visibility_batch_params{.queue_url = url, .entries = {{"x", "h", 1s}, {"x", "h", 1s}}}),
            "'x' is used twice"));
  CHECK(has(refused(delete_message_batch_params{.queue_url = url, .entries = {{"", "h"}}}), "empty Id"));
  CHECK(has(refused(delete_message_batch_params{.queue_url = url, .entries = {{std::string(81, 'i'), "h"}}}),
            "longer than 80 characters"));
  CHECK(build_request(delete_message_batch_params{.queue_url = url, .entries = {{std::string(80, 'i'), "h"}}}).has_value());
  CHECK(has(refused(delete_message_batch_params{.queue_url = url, .entries = {{"a.b", "h"}}}),
            "may hold only letters, digits, '_' and '-'"));
  CHECK(has(refused(delete_message_batch_params{.queue_url = url, .entries = {{"a", ""}}}),
            "entry 'a' receipt handle is empty"));
  CHECK(has(refused(change_message_visibility_batch_params{.queue_url = url, .entries = {{"a", "h", 43201s}}}),
            "entry 'a' VisibilityTimeout of 43201 s"));
}

TEST_CASE("every body of a batch is checked, and so is their sum") {
  std::string const url = "http://h/1/q";
  CHECK(has(refused(send_message_batch_params{.queue_url = url, .entries = {{.id = "ok", .body = "x"},
                                                                           {.id = "bad", .body = "\x0b"}}}),
            "entry 'bad' MessageBody holds U+000B"));
  CHECK(has(refused(send_message_batch_params{.queue_url = url, .entries = {{.id = "a", .body = ""}}}),
            "entry 'a' MessageBody is empty"));
  CHECK(has(refused(send_message_batch_params{.queue_url = url, .entries = {{.id = "a", .body = "x", .delay = 1800s}}}),
            "entry 'a': DelaySeconds of 1800 s is outside 0..900 s"));
  std::string const half(default_max_message_bytes / 2, 'h');
  CHECK(build_request(send_message_batch_params{.queue_url = url, .entries = {{.id = "a", .body = half},
                                                                             {.id = "b", .body = half}}})
            .has_value());
  CHECK(has(refused(send_message_batch_params{.queue_url = url, .entries = {{.id = "a", .body = half},
                                                                           {.id = "b", .body = half + "!"}}}),
            "the bodies of the batch add up to 262145 bytes, more than the limit of 262144 bytes"));
}

TEST_CASE("a queue given by name is looked up with GetQueueUrl; one given by URL needs no request") {
  auto by_name = parse_queue_ref("orders");
  REQUIRE(by_name.has_value());
  auto req = queue_url_request(*by_name);
  REQUIRE(req.has_value());
  CHECK(req->target == "AmazonSQS.GetQueueUrl");
  CHECK(req->body == R"({"QueueName":"orders"})");
  auto by_url = parse_queue_ref("http://h/1/orders");
  REQUIRE(by_url.has_value());
  auto none = queue_url_request(*by_url);
  REQUIRE(none.has_error());
  CHECK(none.error().diag.message == "SQS GetQueueUrl: the queue is given by its URL; there is nothing to look up");
  CHECK(queue_url_request(queue_ref{.url = {}, .name = "bad name"}).has_error());
}

}  // namespace sqs_requests_test
