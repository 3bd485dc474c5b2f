// What sqs::client works out of an operation's params before sending it
// (sqs/detail/call_facts.hpp): the resource its errors name, and the read
// timeout of one attempt (a receive's outlasts its long poll).

#include <floe/sqs/batches.hpp>
#include <floe/sqs/detail/call_facts.hpp>

#include <doctest/doctest.h>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace sqs_call_facts_test {

namespace sqs = floe::sqs;
using namespace std::chrono_literals;

TEST_CASE("call facts: the resource is the queue's name, never the URL's host") {
  sqs::send_message_params s;
  s.queue_url = "https://sqs.eu-west-1.amazonaws.com/123456789012/orders.fifo";
  CHECK(sqs::detail::resource_of(s) == "orders.fifo");
  sqs::delete_message_batch_params d;
  d.queue_url = "http://127.0.0.1:4566/000000000000/jobs";
  CHECK(sqs::detail::resource_of(d) == "jobs");
  sqs::create_queue_params c;
  c.queue_name = "new-queue";
  CHECK(sqs::detail::resource_of(c) == "new-queue");
  sqs::get_queue_url_params g;
  g.queue_name = "looked-up";
  CHECK(sqs::detail::resource_of(g) == "looked-up");
}

TEST_CASE("call facts: a receive's read timeout outlasts its wait; other operations keep the configured one") {
  sqs::receive_message_params r;
  r.wait = 20s;
  CHECK(sqs::detail::read_timeout_for(r, 5000ms) == 25000ms);
  r.wait = 0s;
  CHECK(sqs::detail::read_timeout_for(r, 5000ms) == 5000ms);
  r.wait.reset();  // the queue's own wait, up to 20 s
  CHECK(sqs::detail::read_timeout_for(r, 5000ms) == 25000ms);
  CHECK(sqs::detail::read_timeout_for(r, 0ms) == 0ms);  // no read timeout stays none
  sqs::send_message_params s;
  CHECK(sqs::detail::read_timeout_for(s, 5000ms) == 5000ms);
  sqs::send_message_batch_params b;
  CHECK(sqs::detail::read_timeout_for(b, 0ms) == 0ms);
}

}  // namespace sqs_call_facts_test
