// sqs::client against moto 5.2.1 through a private test proxy whose SigV4
// verifier checks every request: every operation; a queue name resolved
// once; AWS's documented JSON error replies (tests/data/sqs/aws) replayed
// byte for byte, each ending as its kind says (not found, invalid receipt,
// throttling retried, stale credentials healed with one STS call); a
// cancelled long poll returning at once with the client still usable.

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wnull-dereference"
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

#include "sqs_world.hpp"

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/post.hpp>
#include <doctest/doctest.h>

#include <future>
#include <set>

// Its own namespace: it shares a build unit with other test files
// (tests/integration/meson.build).
namespace sqs_sqs_client_it {

namespace sqs = floe::sqs;
using floe::errc;
using floe::test::sqs_world;
using namespace std::chrono_literals;

namespace {

std::string new_queue_name(std::string_view what) {
  static int n = 0;
  return "floe-it-" + std::string(what) + "-" + std::to_string(::getpid()) + "-" + std::to_string(++n);
}

}  // namespace

TEST_CASE("every operation against moto, each request's signature checked by the proxy") {
  sqs_world w(sqs_world::keys::fixed);
  auto& q = *w.client;
  std::string const name = new_queue_name("ops");

  sqs::create_queue_params cq;
  cq.queue_name = name;
  cq.attributes = {{"VisibilityTimeout", "30"}};
  auto made = w.call(cq);
  REQUIRE_MESSAGE(made.has_value(), made.error().what());
  std::string const url = made->queue_url;
  CHECK(url.ends_with("/" + name));

  auto looked = w.queue_url(sqs::queue_ref{.url = {}, .name = name});
  REQUIRE(looked.has_value());
  CHECK(*looked == url);

  sqs::set_queue_attributes_params sa;
  sa.queue_url = url;
  sa.attributes = {{"DelaySeconds", "0"}, {"MaximumMessageSize", "262144"}};
  REQUIRE(w.call(sa).has_value());
  sqs::get_queue_attributes_params ga;
  ga.queue_url = url;
  auto attrs = w.call(ga);
  REQUIRE(attrs.has_value());
  CHECK(attrs->find("MaximumMessageSize") == "262144");
  CHECK(attrs->find("QueueArn").ends_with(":" + name));

  sqs::send_message_params sm;
  sm.queue_url = url;
  sm.body = "unicode é 🙂 and\nnewlines\ttabs";
  auto sent = w.call(sm);
  REQUIRE_MESSAGE(sent.has_value(), sent.error().what());
  CHECK(sent->md5_of_body == sqs::md5_hex(sm.body));

  sqs::send_message_batch_params sb;
  sb.queue_url = url;
  for (int i = 0; i < 10; ++i) sb.entries.push_back({.id = "e" + std::to_string(i), .body = "batch " + std::to_string(i)});
  auto batch = w.call(sb);
  REQUIRE(batch.has_value());
  CHECK(batch->successful.size() == 10);
  CHECK(batch->failed.empty());

  std::set<std::string> bodies;
  std::vector<sqs::message> got;
  while (got.size() < 11) {
    sqs::receive_message_params rm;
    rm.queue_url = url;
    rm.max_messages = 10;
    rm.wait = 1s;
    rm.system_attribute_names = {"ApproximateReceiveCount", "SentTimestamp"};
    auto r = w.call(rm);
    REQUIRE_MESSAGE(r.has_value(), r.error().what());
    REQUIRE_FALSE(r->messages.empty());
    CHECK(r->rejected.empty());
    for (auto& m : r->messages) {
      CHECK(m.receive_count() == 1u);
      CHECK(m.sent_time().has_value());
      bodies.insert(m.body);
      got.push_back(std::move(m));
    }
  }
  CHECK(bodies.count(sm.body) == 1);
  CHECK(bodies.count("batch 9") == 1);

  // Visibility: one at a time, then a batch; then delete one, then a batch.
  sqs::change_message_visibility_params cv;
  cv.queue_url = url;
  cv.receipt_handle = got[0].receipt_handle;
  cv.visibility_timeout = 60s;
  CHECK(w.call(cv).has_value());
  sqs::change_message_visibility_batch_params cvb;
  cvb.queue_url = url;
  cvb.entries.push_back({.id = "a", .receipt_handle = got[1].receipt_handle, .visibility_timeout = 60s});
  cvb.entries.push_back({.id = "bad", .receipt_handle = "not-a-receipt-handle", .visibility_timeout = 60s});
  auto cvr = w.call(cvb);
  REQUIRE(cvr.has_value());
  CHECK(cvr->successful == std::vector<std::string>{"a"});
  REQUIRE(cvr->failed.size() == 1);
  CHECK(cvr->failed[0].id == "bad");
  CHECK(cvr->failed[0].code == "ReceiptHandleIsInvalid");

  sqs::delete_message_params dm;
  dm.queue_url = url;
  dm.receipt_handle = got[0].receipt_handle;
  CHECK(w.call(dm).has_value());
  sqs::delete_message_batch_params db;
  db.queue_url = url;
  for (std::size_t i = 1; i < got.size(); ++i)
    db.entries.push_back({.id = "d" + std::to_string(i), .receipt_handle = got[i].receipt_handle});
  auto dbr = w.call(db);
  REQUIRE(dbr.has_value());
  CHECK(dbr->successful.size() == 10);
  CHECK(dbr->failed.empty());

  sqs::purge_queue_params pq;
  pq.queue_url = url;
  CHECK(w.call(pq).has_value());
  sqs::delete_queue_params dq;
  dq.queue_url = url;
  CHECK(w.call(dq).has_value());
  auto gone = w.queue_url(sqs::queue_ref{.url = {}, .name = new_queue_name("never-made")});
  REQUIRE_FALSE(gone.has_value());
  CHECK(gone.error().code == errc::not_found);
  CHECK(gone.error().diag.code == "QueueDoesNotExist");
  CHECK(gone.error().diag.operation == "GetQueueUrl");

  auto const stats = w.proxy_stats();
  CHECK(floe::test::json_int(stats, "signature_failures") == 0);
  CHECK(floe::test::json_int(stats, "requests") >= 15);  // 14 operations and at least one receive
  CHECK(q.stats().queue_url_lookups == 2);
}

TEST_CASE("a queue named by name is looked up once and remembered; a URL is never looked up") {
  sqs_world w(sqs_world::keys::fixed);
  std::string const name = new_queue_name("lookup");
  std::string const url = w.make_queue(name);
  int const lookups = w.count_requests("GetQueueUrl");
  for (int i = 0; i < 3; ++i) {
    auto u = w.queue_url(sqs::queue_ref{.url = {}, .name = name});
    REQUIRE(u.has_value());
    CHECK(*u == url);
  }
  auto same = w.queue_url(sqs::queue_ref{.url = url, .name = {}});
  REQUIRE(same.has_value());
  CHECK(*same == url);
  CHECK(w.srv.control.rule_counter(lookups, "matched") == 1);
  CHECK(w.client->stats().queue_url_lookups == 1);
}

TEST_CASE("a message whose body comes back altered is rejected, not delivered, and not deleted") {
  sqs_world w(sqs_world::keys::fixed);
  std::string const url = w.make_queue(new_queue_name("md5"));
  // The reply of ReceiveMessage is rewritten by the proxy: a body with its
  // MD5 of another body (what a corrupting middlebox would deliver).
  std::string const reply =
      R"({"Messages": [{"MessageId": "m-1", "ReceiptHandle": "rh-1", "Body": "altered", )"
      R"("MD5OfBody": ")" + sqs::md5_hex("original") + R"("}]})";
  w.add_json_reply("ReceiveMessage", 200, reply, R"({"first": 1})");
  sqs::receive_message_params rm;
  rm.queue_url = url;
  auto r = w.call(rm);
  REQUIRE(r.has_value());
  CHECK(r->messages.empty());
  REQUIRE(r->rejected.size() == 1);
  CHECK(r->rejected[0].message_id == "m-1");

  // A send whose reply names another body's MD5 is an error, never success.
  w.add_json_reply("SendMessage", 200,
                   R"({"MessageId": "m-2", "MD5OfMessageBody": ")" + sqs::md5_hex("not what was sent") + R"("})",
                   R"({"first": 1})");
  sqs::send_message_params sm;
  sm.queue_url = url;
  sm.body = "what was sent";
  auto s = w.call(sm);
  REQUIRE_FALSE(s.has_value());
  CHECK(s.error().code == errc::checksum_mismatch);
}

TEST_CASE("AWS's JSON error replies, replayed byte for byte, each end as their kind says (static keys)") {
  sqs_world w(sqs_world::keys::fixed);
  std::string const url = w.make_queue(new_queue_name("errors"));
  struct expect {
    char const* file;
    errc code;        // the error after floe is done
    char const* aws;  // the code in the diagnostics
    int sends;        // requests of the operation the proxy saw
  };
  // Retried replies fire once: the second try reaches moto and succeeds.
  expect const cases[] = {
      {"queue-does-not-exist", errc::not_found, "QueueDoesNotExist", 1},
      {"receipt-handle-is-invalid", errc::invalid_receipt_handle, "ReceiptHandleIsInvalid", 1},
      {"message-not-inflight", errc::invalid_receipt_handle, "MessageNotInflight", 1},
      {"over-limit", errc::service_error, "OverLimit", 1},
      {"request-throttled", errc::ok, "", 2},
      {"throttling-exception", errc::ok, "", 2},
      {"kms-throttled", errc::ok, "", 2},
      {"internal-failure", errc::ok, "", 2},
      // Static keys cannot be renewed: stale credentials are the answer.
      {"invalid-client-token-id", errc::stale_credentials, "InvalidClientTokenId", 1},
      {"unrecognized-client", errc::stale_credentials, "UnrecognizedClientException", 1},
      {"expired-token", errc::stale_credentials, "ExpiredTokenException", 1},
      {"access-denied", errc::denied, "AccessDeniedException", 1},
      {"403-no-body", errc::denied, "", 1},
  };
  for (auto const& c : cases) {
    CAPTURE(c.file);
    w.srv.control.delete_rules();
    int const replay = w.replay_aws_reply(c.file, "GetQueueAttributes", R"({"first": 1})");
    sqs::get_queue_attributes_params ga;
    ga.queue_url = url;
    auto r = w.call(ga);
    CHECK(w.srv.control.rule_counter(replay, "matched") == c.sends);
    if (c.code == errc::ok) {
      CHECK_MESSAGE(r.has_value(), (r ? "" : r.error().what()));
      continue;
    }
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == c.code);
    CHECK(r.error().diag.code == c.aws);
    CHECK(r.error().diag.operation == "GetQueueAttributes");
    CHECK(r.error().diag.resource == sqs::queue_name_of(url));
  }
  // The request id AWS's example carries reaches the diagnostics.
  w.srv.control.delete_rules();
  w.replay_aws_reply("queue-does-not-exist", "GetQueueAttributes", R"({"first": 1})");
  sqs::get_queue_attributes_params ga;
  ga.queue_url = url;
  auto r = w.call(ga);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().diag.request_id == "66916324-67ca-54bb-a410-3f567a7a0571");
  CHECK(std::string(r.error().what()).find("The specified queue does not exist.") != std::string::npos);
}

TEST_CASE("throttling that does not stop runs out of attempts as throttled, naming the code and the attempts") {
  sqs_world w(sqs_world::keys::fixed);
  std::string const url = w.make_queue(new_queue_name("throttled"));
  int const replay = w.replay_aws_reply("request-throttled", "GetQueueAttributes", R"({"every": true})");
  sqs::get_queue_attributes_params ga;
  ga.queue_url = url;
  auto r = w.call(ga);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code == errc::throttled);
  CHECK(r.error().diag.code == "RequestThrottled");
  CHECK(w.srv.control.rule_counter(replay, "matched") == 3);
}

TEST_CASE("with refreshable credentials, each stale-credentials reply heals with exactly one STS call") {
  sqs_world w(sqs_world::keys::web_identity);
  std::string const url = w.make_queue(new_queue_name("heal"));
  for (char const* file : {"invalid-client-token-id", "unrecognized-client", "expired-token", "access-denied",
                           "403-no-body"}) {
    CAPTURE(file);
    w.srv.control.delete_rules();
    auto const sts_before = w.sts_calls();
    int const replay = w.replay_aws_reply(file, "SendMessage", R"({"first": 1})");
    sqs::send_message_params sm;
    sm.queue_url = url;
    sm.body = std::string("after ") + file;
    auto r = w.call(sm);
    CHECK_MESSAGE(r.has_value(), (r ? "" : r.error().what()));
    CHECK(w.srv.control.rule_counter(replay, "matched") == 2);
    CHECK(w.sts_calls() == sts_before + 1);
  }
  // And a real revocation at the proxy (its own JSON AccessDenied).
  auto const sts_before = w.sts_calls();
  w.srv.control.call("POST", "/revoke", R"({"access_keys": "all-issued"})");
  sqs::get_queue_attributes_params ga;
  ga.queue_url = url;
  auto r = w.call(ga);
  CHECK_MESSAGE(r.has_value(), (r ? "" : r.error().what()));
  CHECK(w.sts_calls() == sts_before + 1);
  CHECK(floe::test::json_int(w.proxy_stats(), "signature_failures") == 0);
}

TEST_CASE("a long poll cancelled while it waits on the server returns at once; the client goes on") {
  sqs_world w(sqs_world::keys::fixed);
  std::string const url = w.make_queue(new_queue_name("cancel"));
  int const polls = w.count_requests("ReceiveMessage");

  asio::cancellation_signal cancel;
  sqs::receive_message_params rm;
  rm.queue_url = url;
  rm.wait = 20s;
  std::promise<floe::result<sqs::receive_message_result>> done;
  auto finished = done.get_future();
  asio::post(w.io, [&] {
    w.client->async_call(rm, asio::bind_cancellation_slot(cancel.slot(), [&](floe::result<sqs::receive_message_result> r) {
      done.set_value(std::move(r));
    }));
  });
  // The receive is on the wire (the proxy forwarded it to moto, which waits).
  w.await_rule(polls, "matched", 1);
  auto const cancelled_at = std::chrono::steady_clock::now();
  asio::post(w.io, [&] { cancel.emit(asio::cancellation_type::terminal); });
  REQUIRE(finished.wait_for(10s) == std::future_status::ready);
  auto const took = std::chrono::steady_clock::now() - cancelled_at;
  auto r = finished.get();
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code == asio::error::operation_aborted);
  CHECK(took < 5s);  // far below the 20 s the server would have waited

  // The client is still usable. (On another queue: moto goes on serving
  // the abandoned poll, which would take a message sent to this one.)
  std::string const other = w.make_queue(new_queue_name("after-cancel"));
  sqs::send_message_params sm;
  sm.queue_url = other;
  sm.body = "after the cancel";
  REQUIRE(w.call(sm).has_value());
  sqs::receive_message_params again;
  again.queue_url = other;
  again.wait = 5s;
  auto got = w.call(again);
  REQUIRE(got.has_value());
  REQUIRE(got->messages.size() == 1);
  CHECK(got->messages[0].body == "after the cancel");
}

TEST_CASE("an empty long poll is not cut by the read timeout: it outlasts the wait") {
  std::string url;
  {
    // Made with the default read timeout: a moto loaded by other tests can
    // take longer than 1 s to create a queue, and only the poll is in question.
    sqs_world maker(sqs_world::keys::fixed);
    url = maker.make_queue(new_queue_name("longpoll"));
  }
  // A client whose read timeout (1 s) is far below the wait (3 s).
  sqs_world w(sqs_world::keys::fixed, 1000ms);
  sqs::receive_message_params rm;
  rm.queue_url = url;
  rm.wait = 3s;
  auto const start = std::chrono::steady_clock::now();
  auto r = w.call(rm);
  REQUIRE_MESSAGE(r.has_value(), (r ? "" : r.error().what()));
  CHECK(r->messages.empty());
  CHECK(std::chrono::steady_clock::now() - start >= 2s);  // moto did wait: no attempt was cut and retried
}

}  // namespace sqs_sqs_client_it
