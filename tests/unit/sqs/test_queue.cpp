// Queues named by URL or by name, and the read timeout of a long poll
// (sqs/queue.hpp).

#include <floe/sqs/messages.hpp>
#include <floe/sqs/queue.hpp>

#include <doctest/doctest.h>

#include <string>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace sqs_queue_test {

using namespace floe::sqs;
using namespace std::chrono_literals;

TEST_CASE("a QUEUE argument is a URL when it starts with http:// or https://, in any case") {
  CHECK(is_queue_url("https://sqs.eu-west-1.amazonaws.com/123456789012/orders"));
  CHECK(is_queue_url("http://127.0.0.1:4566/000000000000/orders"));
  CHECK(is_queue_url("HTTPS://example/q"));
  CHECK_FALSE(is_queue_url("orders"));
  CHECK_FALSE(is_queue_url("orders.fifo"));
  CHECK_FALSE(is_queue_url("http:/orders"));
  CHECK_FALSE(is_queue_url(""));
}

TEST_CASE("queue names: 1 to 80 of [A-Za-z0-9_-], a FIFO queue's ending in .fifo") {
  CHECK(check_queue_name("orders").has_value());
  CHECK(check_queue_name("a-b_C9").has_value());
  CHECK(check_queue_name("orders.fifo").has_value());
  CHECK(check_queue_name(std::string(80, 'q')).has_value());
  CHECK(check_queue_name(std::string(75, 'q') + ".fifo").has_value());
  auto empty = check_queue_name("");
  REQUIRE(empty.has_error());
  CHECK(empty.error().code == floe::errc::invalid_argument);
  CHECK(empty.error().diag.message == "the queue name is empty");
  auto longer = check_queue_name(std::string(81, 'q'));
  REQUIRE(longer.has_error());
  CHECK(longer.error().diag.message.find("81 characters long; SQS allows at most 80") != std::string::npos);
  CHECK(check_queue_name(".fifo").has_error());
  CHECK(check_queue_name("a.b").has_error());
  CHECK(check_queue_name("with space").has_error());
  CHECK(check_queue_name("caf\xc3\xa9").has_error());
  CHECK(check_queue_name("a/b").has_error());
  auto ctl = check_queue_name("a\nb");
  REQUIRE(ctl.has_error());
  CHECK(ctl.error().diag.message.find("'a?b'") != std::string::npos);  // no raw control character in a message
}

TEST_CASE("queue URLs need a scheme, a host and a queue name at the end of the path") {
  CHECK(check_queue_url("https://sqs.eu-west-1.amazonaws.com/123456789012/orders").has_value());
  CHECK(check_queue_url("http://127.0.0.1:4566/000000000000/orders.fifo").has_value());
  CHECK(check_queue_url("http://localhost:9324/queue/orders").has_value());
  auto empty = check_queue_url("");
  REQUIRE(empty.has_error());
  CHECK(empty.error().diag.message == "the queue URL is empty");
  CHECK(check_queue_url("ftp://host/1/q").error().diag.message.find("does not start with http://") !=
        std::string::npos);
  CHECK(check_queue_url("http:///1/q").error().diag.message.find("has no host") != std::string::npos);
  CHECK(check_queue_url("http://:80/1/q").error().diag.message.find("has no host") != std::string::npos);
  CHECK(check_queue_url("http://host").error().diag.message.find("has no path") != std::string::npos);
  CHECK(check_queue_url("http://host/1/").error().diag.message.find("does not end in a queue name") !=
        std::string::npos);
  CHECK(check_queue_url("http://host/1/my queue").error().diag.message.find("space or a control character") !=
        std::string::npos);
}

TEST_CASE("the queue name is the last segment of the URL's path") {
  CHECK(queue_name_of("https://sqs.eu-west-1.amazonaws.com/123456789012/orders") == "orders");
  CHECK(queue_name_of("http://127.0.0.1:1/123456789012/floe-q.fifo") == "floe-q.fifo");
  CHECK(queue_name_of("http://host/a/b?x=1") == "b");
  CHECK(queue_name_of("http://host") == "");
  CHECK(queue_name_of("orders") == "");
}

TEST_CASE("a QUEUE argument is sorted into a URL used as it is or a name that needs GetQueueUrl") {
  auto url = parse_queue_ref("http://127.0.0.1:1/123456789012/q");
  REQUIRE(url.has_value());
  CHECK(url->url == "http://127.0.0.1:1/123456789012/q");
  CHECK(url->name.empty());
  CHECK_FALSE(url->needs_lookup());
  auto name = parse_queue_ref("orders");
  REQUIRE(name.has_value());
  CHECK(name->name == "orders");
  CHECK(name->needs_lookup());
  CHECK(parse_queue_ref("https://").has_error());
  CHECK(parse_queue_ref("no such/name").has_error());
}

TEST_CASE("the read timeout of a long poll is always longer than its wait") {
  for (auto configured : {1ms, 999ms, 1000ms, 5000ms, 30000ms, 120000ms}) {
    for (auto wait = 0s; wait <= max_wait_time; ++wait) {
      CAPTURE(configured.count());
      CAPTURE(wait.count());
      auto const t = long_poll_read_timeout(wait, configured);
      CHECK(t > wait);
      CHECK(t == wait + configured);
    }
  }
  CHECK(long_poll_read_timeout(20s, 30000ms) == 50000ms);
  CHECK(long_poll_read_timeout(-5s, 1000ms) == 1000ms);
  // No read timeout configured: none here either.
  CHECK(long_poll_read_timeout(20s, 0ms) == 0ms);
  // Absurd values do not overflow.
  CHECK(long_poll_read_timeout(std::chrono::seconds::max(), std::chrono::milliseconds::max()) > 20s);
}

TEST_CASE("a receive without its own wait may wait the queue's, up to 20 s") {
  receive_message_params p;
  CHECK(longest_wait(p) == 20s);
  p.wait = 3s;
  CHECK(longest_wait(p) == 3s);
  CHECK(long_poll_read_timeout(longest_wait(receive_message_params{}), 1000ms) == 21000ms);
}

}  // namespace sqs_queue_test
