// watch::no_queue: a queue client that builds nothing and refuses every
// call, so a watcher can run reconcile_now() without a queue.
#include <floe/watch/no_queue.hpp>
#include <floe/watch/watcher.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <doctest/doctest.h>

#include <string>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace watch_no_queue_test {

static_assert(floe::watch::queue_client<floe::watch::no_queue>);

namespace {

struct answers {
  std::string receive, del, vis, attrs, url;
  bool invalid_argument = false;
};

template <class R>
std::string said(R const& r) {
  return r ? "ok" : r.error().what();
}

// A coroutine function, not a capturing lambda: its arguments live in its
// frame. Parameters named, not temporaries in the co_await (GCC 12: see
// s3/client.hpp).
boost::asio::awaitable<void> ask(floe::watch::no_queue& q, answers& a) {
  namespace asio = boost::asio;
  floe::sqs::receive_message_params rp;
  auto receiving = q.async_call(std::move(rp), asio::use_awaitable);
  auto r = co_await std::move(receiving);
  a.receive = said(r);
  a.invalid_argument = !r && r.error().code == floe::make_error_code(floe::errc::invalid_argument);
  floe::sqs::delete_message_batch_params dp;
  auto deleting = q.async_call(std::move(dp), asio::use_awaitable);
  a.del = said(co_await std::move(deleting));
  floe::sqs::change_message_visibility_batch_params vp;
  auto changing = q.async_call(std::move(vp), asio::use_awaitable);
  a.vis = said(co_await std::move(changing));
  floe::sqs::get_queue_attributes_params ap;
  auto asking = q.async_call(std::move(ap), asio::use_awaitable);
  a.attrs = said(co_await std::move(asking));
  floe::sqs::queue_ref ref;
  auto resolving = q.async_queue_url(ref, asio::use_awaitable);
  a.url = said(co_await std::move(resolving));
}

}  // namespace

TEST_CASE("no_queue: every call fails at once with invalid_argument, naming the call") {
  boost::asio::io_context io;
  floe::watch::no_queue q;
  answers a;
  boost::asio::co_spawn(io, ask(q, a), boost::asio::detached);
  io.run();
  CHECK(a.invalid_argument);
  CHECK(a.receive.find("ReceiveMessage: this watcher has no queue") != std::string::npos);
  CHECK(a.del.find("DeleteMessageBatch") != std::string::npos);
  CHECK(a.vis.find("ChangeMessageVisibilityBatch") != std::string::npos);
  CHECK(a.attrs.find("GetQueueAttributes") != std::string::npos);
  CHECK(a.url.find("GetQueueUrl") != std::string::npos);
}

}  // namespace watch_no_queue_test
