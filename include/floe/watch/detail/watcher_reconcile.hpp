#pragma once
// watcher<Queue>: reconcile listings (reconcile.hpp) — each pattern's
// literal prefix listed a page at a time, the matching objects the ledger
// lacks worked on like an event's. Included by watch/watcher.hpp
// (templates).

#include <floe/watch/watcher.hpp>

#include <floe/s3/list_pager.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/deferred.hpp>
#include <boost/asio/experimental/parallel_group.hpp>
#include <boost/asio/this_coro.hpp>

#include <exception>
#include <random>

namespace floe::watch {

template <queue_client Queue>
double watcher<Queue>::random01() {
  return std::uniform_real_distribution<double>(0.0, 1.0)(rng_);
}

// One pass. A failing listing is counted (stage "reconcile"), logged, and
// left until the next pass; a page's objects are committed before the next
// page is asked for.
template <queue_client Queue>
boost::asio::awaitable<result<reconcile_report>> watcher<Queue>::reconcile_now() {
  auto init = co_await l_.async_init(awaited);
  if (!init) co_return init.error();
  count_credentials();
  co_return co_await reconcile_once();
}

template <queue_client Queue>
boost::asio::awaitable<reconcile_report> watcher<Queue>::reconcile_once() {
  auto const start = clock::now();
  metrics const at_start = metrics_;
  reconcile_report report;
  // Current before the first page, so that what others registered is not
  // HEADed again.
  auto refreshing = l_.async_refresh(awaited);
  if (auto r = co_await std::move(refreshing); !r) {
    metrics_.count_error(stage::ledger, r.error());
    log(log_level::warning, "ledger_refresh_failed", "ledger " + l_.location() + ": " + r.error().what());
  }
  std::uint64_t listed = 0;
  auto const before = metrics_.reconciled_objects;
  bool failed = false;
  auto known = [this](std::string_view bucket, std::string_view key, std::string_view etag) {
    return l_.contains(ledger::entry{std::string(bucket), std::string(key), std::string(etag), {}, 0});
  };
  for (auto const& t : reconcile_targets(cfg_.patterns)) {
    s3::list_params p;
    p.prefix = t.prefix;
    s3::list_pager pages(s3_, t.bucket, p);
    while (!pages.done() && !stopping_) {
      // Named, not temporaries in the co_await (GCC 12: see s3/client.hpp).
      auto paging = pages.async_next_page(awaited);
      auto page = co_await std::move(paging);
      if (!page) {
        failed = true;
        if (report.listing_error.empty())
          report.listing_error = "listing s3://" + t.bucket + "/" + t.prefix + ": " + page.error().what();
        metrics_.count_error(stage::reconcile, page.error());
        log(log_level::warning, "reconcile_failed",
            "listing s3://" + t.bucket + "/" + t.prefix + ": " + page.error().what() + " (until the next pass)",
            {{"bucket", t.bucket}, {"prefix", t.prefix}, {"kind", std::string(error_kind(page.error()))}});
        break;
      }
      listed += page->objects.size();
      std::vector<listed_object> objects;
      objects.reserve(page->objects.size());
      for (auto& o : page->objects) objects.push_back({std::move(o.key), std::move(o.etag), o.size});
      auto work = reconcile_page(t.bucket, objects, filter_, known);
      if (!work.empty()) co_await work_listed(std::move(work));
    }
  }
  report.listed = listed;
  report.registered = metrics_.reconciled_objects - at_start.reconciled_objects;
  report.already = metrics_.duplicates_skipped - at_start.duplicates_skipped;
  report.skipped = metrics_.objects_skipped - at_start.objects_skipped;
  report.failed = metrics_.objects_failed - at_start.objects_failed;
  report.commits = metrics_.commits - at_start.commits;
  if (stopping_) co_return report;
  ++metrics_.reconcile_passes;
  auto const took = std::chrono::duration_cast<std::chrono::milliseconds>(clock::now() - start);
  log(failed ? log_level::warning : log_level::info, "reconciled",
      "reconcile listing: " + std::to_string(listed) + " objects listed, " +
          std::to_string(metrics_.reconciled_objects - before) + " registered" + (failed ? " (a listing failed)" : ""),
      {{"listed", std::to_string(listed)}, {"registered", std::to_string(metrics_.reconciled_objects - before)},
       {"ms", std::to_string(took.count())}});
  co_return report;
}

// A page's objects through work_objects (HEAD, --exec, one commit), as a
// batch without messages; ended like a batch at the stop grace.
template <queue_client Queue>
boost::asio::awaitable<void> watcher<Queue>::work_listed(std::vector<object_work> objects) {
  namespace asio = boost::asio;
  in_batch_ = true;
  batch_ = batch::of_objects(std::move(objects));
  deleted_.clear();
  auto ex = co_await asio::this_coro::executor;
  auto working = asio::co_spawn(ex, work_objects(), asio::deferred);
  auto keeping = asio::co_spawn(ex, keep_visible(), asio::deferred);
  auto group = asio::experimental::make_parallel_group(std::move(working), std::move(keeping));
  auto [order, e_work, e_keep] =
      co_await std::move(group).async_wait(asio::experimental::wait_for_one(), awaited);
  (void)e_keep;
  if (order[0] == 0 && e_work) {
    try {
      std::rethrow_exception(e_work);
    } catch (std::exception const& x) {
      log(log_level::error, "internal_error", x.what());
    } catch (...) {
      log(log_level::error, "internal_error", "unknown exception");
    }
  }
  for (auto const& o : batch_.objects())
    if (o.outcome == object_outcome::committed) ++metrics_.reconciled_objects;
  in_batch_ = false;
}

}  // namespace floe::watch
