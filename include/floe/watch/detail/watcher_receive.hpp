#pragma once
// watcher<Queue>: the receive side. The receiver fills ahead_ while a batch
// is in work, the work loop takes all of it as its next batch; a long poll
// only when nothing is in work or waiting. Included by watch/watcher.hpp
// (templates).

#include <floe/watch/detail/side_by_side.hpp>
#include <floe/watch/watcher.hpp>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace floe::watch {

// Receiving and working side by side (watcher.hpp): the receiver fills
// ahead_ while there is room, the work loop takes all of it as its next
// batch. Both end on stop(); what was received and not taken is then
// handed back.
template <queue_client Queue>
boost::asio::awaitable<void> watcher<Queue>::receive_loop() {
  if (cfg_.reconcile_every > std::chrono::milliseconds(0)) reconcile_.emplace(cfg_.reconcile_every, clock::now(), random01());
  // Named, not temporaries in the co_await (GCC 12: see s3/client.hpp).
  auto working = work_loop();
  auto receiving = receiver();
  co_await detail::side_by_side(std::move(working), std::move(receiving), awaited);
  co_await hand_back_ahead();
}

// How many messages a receive may ask for now; 0: none is sent. A whole
// receive when nothing is in work and nothing waits, or while a whole one
// still fits in cfg.receive_ahead and the places the batch in work's failed
// objects gave back; never during a reconcile pass. Less than a whole one
// only to fill given-back places: a clean batch's receives are whole.
template <queue_client Queue>
std::size_t watcher<Queue>::receive_room() const noexcept {
  if (stopping_ || reconciling_) return 0;
  auto const whole = static_cast<std::size_t>(std::max(cfg_.max_messages, 1));
  if (!in_batch_ && ahead_.empty()) return whole;
  if (denial_.denied()) return 0;  // the batch waits out a refusal: nothing new (denial.hpp)
  auto const limit = cfg_.receive_ahead + given_back_;
  if (ahead_.size() >= limit) return 0;
  auto const room = limit - ahead_.size();
  if (room >= whole) return whole;
  return given_back_ > 0 ? room : 0;
}

template <queue_client Queue>
boost::asio::awaitable<void> watcher<Queue>::receiver() {
  while (!stopping_) {
    if (!may_receive()) {
      co_await wait_on(room_, time_point::max());
      continue;
    }
    // Awaited into a name first (GCC 12 and co_await in a condition).
    bool const dry = co_await receive_once();
    if (dry) co_await wait_on(room_, clock::now() + std::chrono::seconds(1));
  }
}

template <queue_client Queue>
boost::asio::awaitable<void> watcher<Queue>::work_loop() {
  while (!stopping_) {
    if (reconcile_ && reconcile_->due(clock::now())) {
      reconciling_ = true;
      reconcile_->started(clock::now(), random01());
      co_await reconcile_once();
      reconciling_ = false;
      room_.cancel();
      continue;
    }
    if (ahead_.empty()) {
      co_await wait_on(ready_, reconcile_ ? reconcile_->next() : time_point::max());
      continue;
    }
    auto messages = std::move(ahead_);
    ahead_.clear();
    auto const received = ahead_received_;
    room_.cancel();
    co_await work_batch(std::move(messages), received);
    room_.cancel();
  }
}

// Waits until `until`, a cancel() of `t` (a wake-up: the waiter checks
// again) or stop().
template <queue_client Queue>
boost::asio::awaitable<void> watcher<Queue>::wait_on(boost::asio::steady_timer& t, time_point until) {
  namespace asio = boost::asio;
  if (stopping_) co_return;
  t.expires_at(until);
  boost::system::error_code ec;
  co_await t.async_wait(asio::redirect_error(awaited, ec));
}

// Messages received but not yet taken into a batch when the watcher stops:
// handed back at once, like those received while stopping.
template <queue_client Queue>
boost::asio::awaitable<void> watcher<Queue>::hand_back_ahead() {
  if (ahead_.empty()) co_return;
  std::vector<std::string> handles;
  handles.reserve(ahead_.size());
  for (auto const& m : ahead_) {
    keeper_.release(m.receipt_handle);
    handles.push_back(m.receipt_handle);
  }
  metrics_.messages_received += ahead_.size();
  metrics_.messages_kept += ahead_.size();
  log(log_level::info, "left", std::to_string(ahead_.size()) + " messages received ahead of the work: not worked on");
  ahead_.clear();
  co_await release_messages(hand_back_all(handles));
}

// One receive: a long poll when nothing is in work or waiting, else a
// short one (watcher.hpp). True: a short poll found nothing.
template <queue_client Queue>
boost::asio::awaitable<bool> watcher<Queue>::receive_once() {
  namespace asio = boost::asio;
  sqs::receive_message_params p;
  p.queue_url = url_;
  bool const ahead = in_batch_ || reconciling_ || !ahead_.empty();
  p.max_messages = static_cast<int>(std::max<std::size_t>(receive_room(), 1));  // whole unless filling given-back places
  p.wait = ahead ? std::chrono::seconds(0) : cfg_.wait;
  p.visibility_timeout = cfg_.visibility_timeout;
  p.system_attribute_names = {"ApproximateReceiveCount"};
  auto const sent = clock::now();
  // Named, not temporaries in the co_await (GCC 12: see s3/client.hpp).
  auto token = asio::bind_cancellation_slot(receive_cancel_.slot(), awaited);
  auto receiving = q_.async_call(std::move(p), token);
  long_polling_ = !ahead;
  auto r = co_await std::move(receiving);
  long_polling_ = false;
  receive_cancel_.slot().clear();
  if (stopping_) {
    // Received while stopping: not worked on, handed back at once.
    if (r && !r->messages.empty()) {
      metrics_.messages_received += r->messages.size();
      metrics_.messages_kept += r->messages.size();
      std::vector<std::string> handles;
      for (auto const& m : r->messages) handles.push_back(m.receipt_handle);
      log(log_level::info, "left", std::to_string(r->messages.size()) + " messages received while stopping: not worked on");
      co_await release_messages(hand_back_all(handles));
    }
    co_return false;
  }
  if (!r && ahead) {
    // Counted; not the gates' business (the batch in work has its own
    // steps' refusals): no receive ahead for a second or until the batch
    // ends, then a long poll goes through the gates as ever.
    metrics_.count_error(stage::receive, r.error());
    co_return true;
  }
  if (!r) {
    metrics_.count_error(stage::receive, r.error());
    auto& gate = is_denial(r.error().code) ? denial_ : trouble_;
    auto s = gate.on_denied(clock::now(), "ReceiveMessage: " + r.error().what());
    metrics_.denials = denial_.episodes();
    if (s.log_line)
      log(log_level::error, &gate == &denial_ ? "denied" : "receive_failed",
          gate.reason() + " (retrying in " + std::to_string(s.wait.count()) + " ms, step " + std::to_string(s.number) + ")",
          {{"stage", "receive"}, {"kind", std::string(error_kind(r.error()))}, {"step", std::to_string(s.number)},
           {"retry_ms", std::to_string(s.wait.count())}});
    co_await sleep(s.wait);
    co_return false;
  }
  if (!ahead && denial_.on_success()) log(log_level::info, "access_restored", "access restored: ReceiveMessage succeeded");
  if (!ahead && trouble_.on_success()) log(log_level::info, "receive_recovered", "ReceiveMessage succeeded again");
  for (auto const& rej : r->rejected) {
    // A body that fails its MD5 is not read: it comes back, and after
    // maxReceiveCount lands in the dead-letter queue.
    ++metrics_.messages_received;
    ++metrics_.messages_kept;
    error e(errc::checksum_mismatch, rej.reason);
    metrics_.count_error(stage::receive, e);
    log(log_level::warning, "corrupt", "message " + rej.message_id + " kept: " + rej.reason,
        {{"message_id", rej.message_id}});
  }
  if (r->messages.empty()) co_return ahead;
  // Held from now (their visibility is kept up while they wait), worked on
  // by the next batch.
  for (auto& m : r->messages) {
    keeper_.hold(m.receipt_handle, sent);
    ahead_.push_back(std::move(m));
  }
  ahead_received_ = clock::now();
  ready_.cancel();
  co_return false;
}

}  // namespace floe::watch
