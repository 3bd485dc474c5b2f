#pragma once
// watcher<Queue>: the receive loop, stopping, back-off waits, visibility
// extension and health. Included by watch/watcher.hpp (templates).

#include <floe/watch/watcher.hpp>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/deferred.hpp>
#include <boost/asio/experimental/parallel_group.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/this_coro.hpp>

#include <algorithm>
#include <charconv>
#include <exception>

namespace floe::watch {

template <queue_client Queue>
boost::asio::awaitable<result<void>> watcher<Queue>::run() {
  namespace asio = boost::asio;
  auto resolving = q_.async_queue_url(cfg_.queue, asio::use_awaitable);
  auto url = co_await std::move(resolving);
  if (!url) co_return url.error();
  url_ = std::move(*url);
  auto init = co_await l_.async_init(asio::use_awaitable);
  if (!init) co_return init.error();
  count_credentials();  // the first set is in hand now: refreshes count from it
  log(log_level::info, "started", "watching " + url_ + ", ledger " + l_.location(),
      {{"queue", url_}, {"ledger", l_.location()}, {"head", std::to_string(l_.head())},
       {"entries", std::to_string(l_.size())}});
  if (cfg_.queue_poll > std::chrono::seconds(0)) {
    // Beside the receive loop: both end on stop() (the poll's request and
    // wait are cut short).
    auto ex = co_await asio::this_coro::executor;
    auto receiving = asio::co_spawn(ex, receive_loop(), asio::deferred);
    auto polling = asio::co_spawn(ex, poll_loop(), asio::deferred);
    auto group = asio::experimental::make_parallel_group(std::move(receiving), std::move(polling));
    auto [order, e_receive, e_poll] =
        co_await std::move(group).async_wait(asio::experimental::wait_for_all(), asio::use_awaitable);
    (void)order;
    if (e_receive) std::rethrow_exception(e_receive);
    if (e_poll) std::rethrow_exception(e_poll);
  } else {
    co_await receive_loop();
  }
  // The run's summary: --log-format json gives it as one object.
  log(log_level::info, "stopped", "stopped",
      {{"held", std::to_string(keeper_.held())},
       {"committed", std::to_string(metrics_.objects_committed)},
       {"already", std::to_string(metrics_.duplicates_skipped)},
       {"stale", std::to_string(metrics_.stale_events)},
       {"removals", std::to_string(metrics_.removals_committed)},
       {"failed", std::to_string(metrics_.objects_failed)}});
  co_return result<void>{};
}

template <queue_client Queue>
void watcher<Queue>::stop() {
  if (stopping_) return;
  stopping_ = true;
  grace_end_ = clock::now() + cfg_.stop_grace;
  log(log_level::info, "stopping", in_batch_ ? "stopping: finishing the batch in work" : "stopping");
  // A long poll is cut short; a short one (received ahead) ends by itself,
  // and what it brings is handed back.
  if (long_polling_) receive_cancel_.emit(boost::asio::cancellation_type::terminal);
  poll_cancel_.emit(boost::asio::cancellation_type::terminal);
  for (auto* t : sleepers_) t->cancel();
  wake_.cancel();
  ready_.cancel();
  room_.cancel();
}

// Receiving and working side by side (watcher.hpp): the receiver fills
// ahead_ while there is room, the work loop takes all of it as its next
// batch. Both end on stop(); what was received and not taken is then
// handed back.
template <queue_client Queue>
boost::asio::awaitable<void> watcher<Queue>::receive_loop() {
  namespace asio = boost::asio;
  if (cfg_.reconcile_every > std::chrono::milliseconds(0)) reconcile_.emplace(cfg_.reconcile_every, clock::now(), random01());
  auto ex = co_await asio::this_coro::executor;
  // Named, not temporaries in the co_await (GCC 12: see s3/client.hpp).
  auto working = asio::co_spawn(ex, work_loop(), asio::deferred);
  auto receiving = asio::co_spawn(ex, receiver(), asio::deferred);
  auto group = asio::experimental::make_parallel_group(std::move(working), std::move(receiving));
  auto [order, e_work, e_receive] =
      co_await std::move(group).async_wait(asio::experimental::wait_for_all(), asio::use_awaitable);
  (void)order;
  if (e_work) std::rethrow_exception(e_work);
  if (e_receive) std::rethrow_exception(e_receive);
  co_await hand_back_ahead();
}

// A receive is sent when nothing is in work and nothing waits, or while a
// whole one still fits in cfg.receive_ahead; never during a reconcile pass.
template <queue_client Queue>
bool watcher<Queue>::may_receive() const noexcept {
  if (stopping_ || reconciling_) return false;
  if (!in_batch_ && ahead_.empty()) return true;
  if (denial_.denied()) return false;  // the batch waits out a refusal: nothing new (denial.hpp)
  return ahead_.size() + static_cast<std::size_t>(std::max(cfg_.max_messages, 1)) <= cfg_.receive_ahead;
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
  co_await t.async_wait(asio::redirect_error(asio::use_awaitable, ec));
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

// The queue's message counts for the gauges, every cfg.queue_poll. A
// failure is counted (stage "queue"), logged when it starts and when it
// ends, and leaves the gauges at their last values.
template <queue_client Queue>
boost::asio::awaitable<void> watcher<Queue>::poll_loop() {
  namespace asio = boost::asio;
  auto count = [](sqs::get_queue_attributes_result const& r, std::string_view name) -> std::optional<std::uint64_t> {
    auto v = r.find(name);
    std::uint64_t n = 0;
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (v.empty() || ec != std::errc{} || p != v.data() + v.size()) return std::nullopt;
    return n;
  };
  while (!stopping_) {
    sqs::get_queue_attributes_params p;
    p.queue_url = url_;
    p.attribute_names = {"ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"};
    // Named, not temporaries in the co_await (GCC 12: see s3/client.hpp).
    auto token = asio::bind_cancellation_slot(poll_cancel_.slot(), asio::use_awaitable);
    auto asking = q_.async_call(std::move(p), token);
    auto r = co_await std::move(asking);
    poll_cancel_.slot().clear();
    if (stopping_) co_return;
    if (r) {
      queue_visible_ = count(*r, "ApproximateNumberOfMessages");
      queue_in_flight_ = count(*r, "ApproximateNumberOfMessagesNotVisible");
      if (poll_failing_) log(log_level::info, "queue_poll_recovered", "GetQueueAttributes succeeded again");
      poll_failing_ = false;
    } else {
      metrics_.count_error(stage::queue, r.error());
      if (!poll_failing_)
        log(log_level::warning, "queue_poll_failed", "GetQueueAttributes: " + r.error().what() + " (the queue gauges keep their last values)",
            {{"kind", std::string(error_kind(r.error()))}});
      poll_failing_ = true;
    }
    co_await sleep(cfg_.queue_poll);
  }
}

// One receive: a long poll when nothing is in work or waiting, else a
// short one (watcher.hpp). True: a short poll found nothing.
template <queue_client Queue>
boost::asio::awaitable<bool> watcher<Queue>::receive_once() {
  namespace asio = boost::asio;
  sqs::receive_message_params p;
  p.queue_url = url_;
  p.max_messages = cfg_.max_messages;
  bool const ahead = in_batch_ || reconciling_ || !ahead_.empty();
  p.wait = ahead ? std::chrono::seconds(0) : cfg_.wait;
  p.visibility_timeout = cfg_.visibility_timeout;
  p.system_attribute_names = {"ApproximateReceiveCount"};
  auto const sent = clock::now();
  // Named, not temporaries in the co_await (GCC 12: see s3/client.hpp).
  auto token = asio::bind_cancellation_slot(receive_cancel_.slot(), asio::use_awaitable);
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

template <queue_client Queue>
boost::asio::awaitable<void> watcher<Queue>::sleep(std::chrono::milliseconds d) {
  namespace asio = boost::asio;
  if (stopping_ || d <= std::chrono::milliseconds(0)) co_return;
  asio::steady_timer t(co_await asio::this_coro::executor, d);
  sleepers_.insert(&t);
  struct unlist {
    std::set<asio::steady_timer*>& s;
    asio::steady_timer* t;
    ~unlist() { s.erase(t); }
  } guard{sleepers_, &t};
  boost::system::error_code ec;
  co_await t.async_wait(asio::redirect_error(asio::use_awaitable, ec));
}

template <queue_client Queue>
template <class R, class Op>
boost::asio::awaitable<R> watcher<Queue>::retry_denied(Op& op, std::string_view what, stage st) {
  for (;;) {
    R r = co_await op();
    if (r) {
      if (denial_.on_success()) log(log_level::info, "access_restored", "access restored: " + std::string(what) + " succeeded");
      co_return r;
    }
    if (!is_denial(r.error().code) || stopping_) co_return r;
    metrics_.count_error(st, r.error());
    auto s = denial_.on_denied(clock::now(), std::string(what) + ": " + r.error().what());
    metrics_.denials = denial_.episodes();
    if (s.log_line)
      log(log_level::error, "denied",
          denial_.reason() + " (holding " + std::to_string(keeper_.held()) + " messages, retrying in " +
              std::to_string(s.wait.count()) + " ms, step " + std::to_string(s.number) + ")",
          {{"stage", std::string(to_string(st))}, {"kind", std::string(error_kind(r.error()))},
           {"step", std::to_string(s.number)}, {"retry_ms", std::to_string(s.wait.count())}});
    co_await sleep(s.wait);
    if (stopping_) co_return r;
  }
}

// Runs beside a batch's work: extends what is due, and returns when the
// grace after stop() is over (which ends the work: see work_batch). Never
// returns otherwise; it is cancelled when the work ends first.
template <queue_client Queue>
boost::asio::awaitable<void> watcher<Queue>::keep_visible() {
  namespace asio = boost::asio;
  for (;;) {
    if (past_grace()) co_return;
    auto const now = clock::now();
    auto due = keeper_.next_due();
    time_point until = due ? *due : time_point::max();
    if (stopping_) until = std::min(until, grace_end_);
    if (until > now) {
      wake_.expires_at(until);
      boost::system::error_code ec;
      co_await wake_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
      continue;
    }
    co_await extend_due();
  }
}

template <queue_client Queue>
boost::asio::awaitable<void> watcher<Queue>::extend_due() {
  namespace asio = boost::asio;
  auto handles = keeper_.due(clock::now());
  if (handles.empty()) co_return;
  auto const sent = clock::now();
  auto p = keeper_.params(url_, handles);
  auto extending = q_.async_call(std::move(p), asio::use_awaitable);
  auto r = co_await std::move(extending);
  if (r) {
    metrics_.visibility_extensions += keeper_.on_reply(handles, sent, *r);
    for (auto const& f : r->failed)
      if (f.code != "ReceiptHandleIsInvalid") {
        error e(errc::service_error, f.code + ": " + f.message);
        metrics_.count_error(stage::visibility, e);
      }
    if (!r->failed.empty() && r->successful.empty()) co_await sleep(std::chrono::milliseconds(1000));
    co_return;
  }
  keeper_.on_error(handles);
  metrics_.count_error(stage::visibility, r.error());
  log(log_level::warning, "visibility_failed", "ChangeMessageVisibilityBatch: " + r.error().what(),
      {{"kind", std::string(error_kind(r.error()))}});
  // Not faster than once a second while it fails (a refusal included: the
  // held messages may then be handed out again, and the ledger keeps that
  // harmless).
  co_await sleep(std::chrono::milliseconds(1000));
}

template <queue_client Queue>
void watcher<Queue>::count_credentials() {
  auto c = s3_.credentials_provider().get();
  if (!c || c->generation == 0) return;
  if (first_generation_ == 0) first_generation_ = c->generation;
  if (c->generation > first_generation_)
    metrics_.credential_refreshes = std::max(metrics_.credential_refreshes, c->generation - first_generation_);
}

template <queue_client Queue>
health watcher<Queue>::current_health() {
  count_credentials();
  health h;
  h.messages_held = keeper_.held();
  h.ledger_head = l_.loaded() ? l_.head() : 0;
  h.ledger_entries = l_.size();
  auto const wall_now = std::chrono::time_point_cast<std::chrono::milliseconds>(std::chrono::system_clock::now());
  if (auto age = lag_.oldest_age(wall_now, clock::now())) h.oldest_unregistered_age = std::chrono::duration<double>(*age).count();
  h.queue_visible = queue_visible_;
  h.queue_in_flight = queue_in_flight_;
  if (denial_.denied()) {
    h.ok = false;
    h.reason = "denied: " + denial_.reason();
  } else if (trouble_.denied()) {
    h.ok = false;
    h.reason = "receive failing: " + trouble_.reason();
  }
  return h;
}

template <queue_client Queue>
void watcher<Queue>::log(log_level lvl, std::string_view event, std::string message,
                         std::vector<std::pair<std::string_view, std::string>> fields) {
  if (!hooks_.log) return;
  log_event e;
  e.level = lvl;
  e.event = event;
  e.message = std::move(message);
  e.fields = std::move(fields);
  hooks_.log(std::move(e));
}

}  // namespace floe::watch
