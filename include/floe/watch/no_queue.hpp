#pragma once
// watch::no_queue: a queue client for a watcher that never touches a queue
// (`floe ledger reconcile` runs reconcile_now() alone). Nothing is built
// and nothing is sent: every call completes at once with invalid_argument,
// naming what was asked for.

#include <floe/error.hpp>
#include <floe/result.hpp>
#include <floe/sqs/batches.hpp>
#include <floe/sqs/messages.hpp>
#include <floe/sqs/queue.hpp>
#include <floe/sqs/queues.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <string>

namespace floe::watch {

class no_queue {
 public:
  using token = boost::asio::use_awaitable_t<>;

  boost::asio::awaitable<result<sqs::receive_message_result>> async_call(sqs::receive_message_params, token) {
    co_return refused("ReceiveMessage");
  }
  boost::asio::awaitable<result<sqs::batch_result>> async_call(sqs::delete_message_batch_params, token) {
    co_return refused("DeleteMessageBatch");
  }
  boost::asio::awaitable<result<sqs::batch_result>> async_call(sqs::change_message_visibility_batch_params, token) {
    co_return refused("ChangeMessageVisibilityBatch");
  }
  boost::asio::awaitable<result<sqs::get_queue_attributes_result>> async_call(sqs::get_queue_attributes_params, token) {
    co_return refused("GetQueueAttributes");
  }
  boost::asio::awaitable<result<std::string>> async_queue_url(sqs::queue_ref, token) { co_return refused("GetQueueUrl"); }

 private:
  static error refused(char const* what) {
    return error(errc::invalid_argument, std::string(what) + ": this watcher has no queue");
  }
};

}  // namespace floe::watch
