#pragma once
// watcher<Queue>: run(), stopping, the queue poll, back-off waits,
// visibility extension and health. Included by watch/watcher.hpp
// (templates); the receive side is in watcher_receive.hpp.

#include <floe/watch/detail/side_by_side.hpp>
#include <floe/watch/watcher.hpp>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/this_coro.hpp>

#include <algorithm>
#include <charconv>
#include <exception>

namespace floe::watch {

template <queue_client Queue>
boost::asio::awaitable<result<void>> watcher<Queue>::run() {
  auto resolving = q_.async_queue_url(cfg_.queue, awaited);
  auto url = co_await std::move(resolving);
  if (!url) co_return url.error();
  url_ = std::move(*url);
  auto init = co_await l_.async_init(awaited);
  if (!init) co_return init.error();
  count_credentials();  // the first set is in hand now: refreshes count from it
  log(log_level::info, "started", "watching " + url_ + ", ledger " + l_.location(),
      {{"queue", url_}, {"ledger", l_.location()}, {"head", std::to_string(l_.head())},
       {"entries", std::to_string(l_.size())}});
  if (cfg_.queue_poll > std::chrono::seconds(0)) {
    // Beside the receive loop: both end on stop() (the poll's request and
    // wait are cut short).
    // Named, not temporaries in the co_await (GCC 12: see s3/client.hpp).
    auto receiving = receive_loop();
    auto polling = poll_loop();
    co_await detail::side_by_side(std::move(receiving), std::move(polling), awaited);
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
    auto token = asio::bind_cancellation_slot(poll_cancel_.slot(), awaited);
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
  co_await t.async_wait(asio::redirect_error(awaited, ec));
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
      co_await wake_.async_wait(asio::redirect_error(awaited, ec));
      continue;
    }
    co_await extend_due();
  }
}

template <queue_client Queue>
boost::asio::awaitable<void> watcher<Queue>::extend_due() {
  auto handles = keeper_.due(clock::now());
  if (handles.empty()) co_return;
  auto const sent = clock::now();
  auto p = keeper_.params(url_, handles);
  auto extending = q_.async_call(std::move(p), awaited);
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
