// The heal matrix's SQS and STS rows: every SQS operation (a client on the
// same credentials provider as the S3 client) and STS's signed call.
#include "heal_matrix.hpp"

#include <floe/sts/client.hpp>

namespace floe::test::heal {
namespace {

namespace sqs = floe::sqs;

template <class P>
asio::awaitable<floe::result<typename P::result_type>> call(ctx& c, P p) {
  co_return co_await c.sqs->async_call(std::move(p), asio::use_awaitable);
}

// Runs an SQS call on the io_context from the test's thread.
template <class P>
floe::result<typename P::result_type> call_now(ctx& c, P p) {
  return c.w.run([&]() -> asio::awaitable<floe::result<typename P::result_type>> { co_return co_await call(c, p); });
}

// A queue of the row's own holding `n` messages; with `receive`, they are
// received (in flight) and their receipt handles kept.
std::function<void(ctx&)> queue_with(int n, bool receive) {
  return [n, receive](ctx& c) {
    sqs::create_queue_params q;
    q.queue_name = c.bucket;
    auto made = call_now(c, q);
    REQUIRE_MESSAGE(made.has_value(), (made ? std::string() : made.error().what()));
    c.queue_url = made->queue_url;
    for (int i = 0; i < n; ++i) {
      sqs::send_message_params m;
      m.queue_url = c.queue_url;
      m.body = "message " + std::to_string(i);
      auto sent = call_now(c, m);
      REQUIRE_MESSAGE(sent.has_value(), (sent ? std::string() : sent.error().what()));
    }
    while (receive && static_cast<int>(c.handles.size()) < n) {
      sqs::receive_message_params r;
      r.queue_url = c.queue_url;
      r.max_messages = 10;
      r.wait = std::chrono::seconds(1);
      r.visibility_timeout = std::chrono::seconds(300);
      auto got = call_now(c, r);
      REQUIRE_MESSAGE(got.has_value(), (got ? std::string() : got.error().what()));
      for (auto const& msg : got->messages) c.handles.push_back(msg.receipt_handle);
    }
  };
}

// A batch result: "" when every entry succeeded.
std::string all_done(floe::result<sqs::batch_result> const& r, std::size_t n) {
  if (!r) return r.error().what();
  if (!r->failed.empty() || r->successful.size() != n) return "a batch entry failed";
  return "";
}

}  // namespace

std::vector<row> service_rows() {
  std::vector<row> rows;
  auto add = [&rows](std::string op, std::string api, std::function<void(ctx&)> setup,
                     std::function<asio::awaitable<std::string>(ctx&)> run) {
    std::string target = R"({"header": {"X-Amz-Target": "^AmazonSQS\\.)" + op + R"($"}})";
    rows.push_back({.name = "SQS " + op, .api = std::move(api), .operation = op, .target = std::move(target),
                    .setup = std::move(setup), .run = std::move(run)});
  };
  add("CreateQueue", "async_call", {}, [](ctx& c) -> asio::awaitable<std::string> {
    sqs::create_queue_params q;
    q.queue_name = c.bucket;
    co_return verdict(co_await call(c, q));
  });
  add("GetQueueUrl", "async_queue_url", queue_with(0, false), [](ctx& c) -> asio::awaitable<std::string> {
    sqs::queue_ref q;
    q.name = c.bucket;
    auto url = co_await c.sqs->async_queue_url(q, asio::use_awaitable);
    if (!url) co_return verdict(url);
    co_return *url == c.queue_url ? "" : "another URL: " + *url;
  });
  add("SendMessage", "async_send_message", queue_with(0, false), [](ctx& c) -> asio::awaitable<std::string> {
    sqs::send_message_params m;
    m.queue_url = c.queue_url;
    m.body = "healed";
    auto r = co_await c.sqs->async_send_message(m, asio::use_awaitable);
    if (!r) co_return verdict(r);
    co_return r->message_id.empty() ? "no message id" : "";
  });
  add("SendMessageBatch", "async_send_message_batch", queue_with(0, false), [](ctx& c) -> asio::awaitable<std::string> {
    sqs::send_message_batch_params b;
    b.queue_url = c.queue_url;
    b.entries = {{.id = "a", .body = "one"}, {.id = "b", .body = "two"}};
    auto r = co_await c.sqs->async_send_message_batch(b, asio::use_awaitable);
    if (!r) co_return verdict(r);
    co_return r->failed.empty() && r->successful.size() == 2 ? "" : "a batch entry failed";
  });
  add("ReceiveMessage", "async_receive_message", queue_with(1, false), [](ctx& c) -> asio::awaitable<std::string> {
    sqs::receive_message_params r;
    r.queue_url = c.queue_url;
    r.wait = std::chrono::seconds(1);
    auto got = co_await c.sqs->async_receive_message(r, asio::use_awaitable);
    if (!got) co_return verdict(got);
    co_return got->messages.size() == 1 && got->messages[0].body == "message 0" ? "" : "not the message sent";
  });
  add("DeleteMessage", "async_delete_message", queue_with(1, true), [](ctx& c) -> asio::awaitable<std::string> {
    sqs::delete_message_params d;
    d.queue_url = c.queue_url;
    d.receipt_handle = c.handles.at(0);
    co_return verdict(co_await c.sqs->async_delete_message(d, asio::use_awaitable));
  });
  add("DeleteMessageBatch", "async_delete_message_batch", queue_with(2, true), [](ctx& c) -> asio::awaitable<std::string> {
    sqs::delete_message_batch_params d;
    d.queue_url = c.queue_url;
    d.entries = {{"a", c.handles.at(0)}, {"b", c.handles.at(1)}};
    co_return all_done(co_await c.sqs->async_delete_message_batch(d, asio::use_awaitable), 2);
  });
  add("ChangeMessageVisibility", "async_change_message_visibility", queue_with(1, true),
      [](ctx& c) -> asio::awaitable<std::string> {
        sqs::change_message_visibility_params v;
        v.queue_url = c.queue_url;
        v.receipt_handle = c.handles.at(0);
        v.visibility_timeout = std::chrono::seconds(0);
        co_return verdict(co_await c.sqs->async_change_message_visibility(v, asio::use_awaitable));
      });
  add("ChangeMessageVisibilityBatch", "async_call", queue_with(2, true), [](ctx& c) -> asio::awaitable<std::string> {
    sqs::change_message_visibility_batch_params v;
    v.queue_url = c.queue_url;
    v.entries = {{"a", c.handles.at(0), std::chrono::seconds(0)}, {"b", c.handles.at(1), std::chrono::seconds(0)}};
    co_return all_done(co_await call(c, v), 2);
  });
  add("GetQueueAttributes", "async_call", queue_with(1, false), [](ctx& c) -> asio::awaitable<std::string> {
    sqs::get_queue_attributes_params a;
    a.queue_url = c.queue_url;
    auto r = co_await call(c, a);
    if (!r) co_return verdict(r);
    co_return r->find("ApproximateNumberOfMessages") == "1" ? "" : "wrong attributes";
  });
  add("SetQueueAttributes", "async_call", queue_with(0, false), [](ctx& c) -> asio::awaitable<std::string> {
    sqs::set_queue_attributes_params a;
    a.queue_url = c.queue_url;
    a.attributes = {{"VisibilityTimeout", "45"}};
    co_return verdict(co_await call(c, a));
  });
  add("PurgeQueue", "async_call", queue_with(1, false), [](ctx& c) -> asio::awaitable<std::string> {
    sqs::purge_queue_params p;
    p.queue_url = c.queue_url;
    co_return verdict(co_await call(c, p));
  });
  add("DeleteQueue", "async_call", queue_with(0, false), [](ctx& c) -> asio::awaitable<std::string> {
    sqs::delete_queue_params d;
    d.queue_url = c.queue_url;
    co_return verdict(co_await call(c, d));
  });
  rows.push_back({.name = "STS GetCallerIdentity", .api = "async_get_caller_identity",
                  .operation = "GetCallerIdentity",
                  // Signed (the heal's own fetch, AssumeRoleWithWebIdentity, is not).
                  .target = R"({"service": "sts", "header": {"Authorization": "/sts/aws4_request"}})",
                  .run = [](ctx& c) -> asio::awaitable<std::string> {
                    auto sts = floe::sts::client::create(c.w.io.get_executor(), *c.session);
                    if (!sts) co_return verdict(sts);
                    auto who = co_await (*sts)->async_get_caller_identity(asio::use_awaitable);
                    co_return verdict(who);
                  }});
  return rows;
}

std::vector<exemption> exemptions() {
  return {
      {"async_assume_role",
       "signed with the caller's own fixed credentials, passed by value: there is no provider to refresh (a 403 is "
       "the answer); role chains that refresh are providers/assume_role.hpp, whose fetch is this call"},
      {"async_assume_role_with_web_identity",
       "unsigned: it is the heal's own fetch (every row counts it); its retries are credentials-refreshing's STS "
       "cases"},
      {"async_warm_up",
       "opens connections (TCP, TLS) and sends no request: nothing is signed, so there is no 403 to heal "
       "(S3's and SQS's; service-warm-up checks that the proxy sees no request)"},
  };
}

}  // namespace floe::test::heal
