#pragma once
// watcher<Queue>: giving messages back to the queue (release.hpp) — handed
// back at once on stop, backed off after a failure. Included by
// watch/watcher.hpp (templates).

#include <floe/watch/watcher.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/deferred.hpp>
#include <boost/asio/experimental/parallel_group.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>

#include <algorithm>

namespace floe::watch {

// One ChangeMessageVisibilityBatch per ten entries, each sent once: a
// release that fails leaves its message to the visibility it has (it comes
// back after its timeout, as it would have without the release). While
// stopping, the whole release is bounded: it ends at the stop grace's end
// plus 1.5 s at the latest, so the process still exits within 10 s.
template <queue_client Queue>
boost::asio::awaitable<void> watcher<Queue>::release_messages(std::vector<release_entry> entries) {
  namespace asio = boost::asio;
  if (entries.empty()) co_return;
  auto send_all = [this, &entries]() -> asio::awaitable<void> {
    std::size_t handed = 0;
    std::size_t gone = 0;
    for (auto const& req : release_requests(url_, entries)) {
      auto p = req.params;
      auto releasing = q_.async_call(std::move(p), awaited);
      auto r = co_await std::move(releasing);
      if (!r) {
        metrics_.count_error(stage::visibility, r.error());
        log(log_level::warning, "release_failed",
            "ChangeMessageVisibilityBatch (" + std::to_string(req.entries.size()) +
                " messages left to their visibility timeout): " + r.error().what(),
            {{"kind", std::string(error_kind(r.error()))}});
        continue;
      }
      auto o = on_release_reply(req, *r);
      gone += o.gone;
      for (auto i : o.released) {
        auto const& e = entries[i];
        if (e.kind == release_kind::hand_back) {
          ++handed;
          ++metrics_.messages_handed_back;
          continue;
        }
        note_backed_off(e);
      }
      for (auto const& f : o.failures) {
        error e(errc::service_error, f);
        metrics_.count_error(stage::visibility, e);
        log(log_level::warning, "release_failed", "ChangeMessageVisibilityBatch: " + f);
      }
    }
    if (handed > 0 || gone > 0)
      log(log_level::info, "handed_back",
          std::to_string(handed) + " messages handed back to the queue" +
              (gone > 0 ? " (" + std::to_string(gone) + " gone already)" : ""),
          {{"messages", std::to_string(handed)}, {"gone", std::to_string(gone)}});
  };
  if (!stopping_) {
    co_await send_all();
    co_return;
  }
  auto ex = co_await asio::this_coro::executor;
  auto deadline = std::max(grace_end_, clock::now()) + std::chrono::milliseconds(1500);
  auto bound = [ex, deadline]() -> asio::awaitable<void> {
    asio::steady_timer t(ex, deadline);
    boost::system::error_code ec;
    co_await t.async_wait(asio::redirect_error(awaited, ec));
  };
  // Named, not temporaries in the co_await (GCC 12: see s3/client.hpp).
  auto sending = asio::co_spawn(ex, send_all(), asio::deferred);
  auto waiting = asio::co_spawn(ex, bound(), asio::deferred);
  auto group = asio::experimental::make_parallel_group(std::move(sending), std::move(waiting));
  auto [order, e_send, e_wait] =
      co_await std::move(group).async_wait(asio::experimental::wait_for_one(), awaited);
  (void)e_send;
  (void)e_wait;
  if (order[0] == 1)
    log(log_level::warning, "release_failed", "handing messages back took too long: the rest are left to their timeout");
}

// A back-off in place: counted, and logged with the seconds until the
// message is visible again and the back-off its receive count gives.
template <queue_client Queue>
void watcher<Queue>::note_backed_off(release_entry const& e) {
  ++metrics_.messages_backed_off;
  auto const backoff = backoff_visibility(cfg_.on_failure, e.receive_count);
  log(log_level::info, "backed_off",
      "message " + e.message_id + " (receive " + std::to_string(e.receive_count) + ") visible again in " +
          std::to_string(e.visibility.count()) + " s (" + std::to_string(backoff.count()) + " s after its receive)",
      {{"message_id", e.message_id}, {"receive_count", std::to_string(e.receive_count)},
       {"visibility_s", std::to_string(e.visibility.count())}, {"backoff_s", std::to_string(backoff.count())}});
}

}  // namespace floe::watch
