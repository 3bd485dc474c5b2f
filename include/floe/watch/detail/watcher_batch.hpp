#pragma once
// watcher<Queue>: one batch, from its messages to its deletions. Included
// by watch/watcher.hpp (templates).

#include <floe/watch/watcher.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/deferred.hpp>
#include <boost/asio/experimental/parallel_group.hpp>
#include <boost/asio/this_coro.hpp>

#include <algorithm>
#include <exception>
#include <memory>
#include <vector>

namespace floe::watch {

namespace detail {

// The ledger record an object's work makes: its registration as HEAD
// described it, or its removal; the event's sequencer either way.
inline ledger::entry entry_of(object_work const& w) {
  ledger::entry e{w.bucket, w.key, w.head_etag, w.head_version_id, w.head_size};
  if (w.removal) {
    e.etag.clear();
    e.version_id = w.version_id;
    e.size = 0;
    e.removal = true;
  } else {
    e.checksum_algorithm = w.head_checksum_algorithm;
    e.checksum = w.head_checksum;
  }
  e.sequencer = w.sequencer;
  return e;
}

inline std::string object_uri(object_work const& w) { return "s3://" + w.bucket + "/" + w.key; }

inline lag_tracker::identity lag_id(object_work const& w) { return {w.bucket, w.key, w.etag, w.version_id}; }

}  // namespace detail

template <queue_client Queue>
boost::asio::awaitable<void> watcher<Queue>::work_batch(std::vector<sqs::message> messages, time_point received) {
  // Held since their receive (receive_once); `received`: the latest of
  // their receives' replies, from which back-offs count.
  namespace asio = boost::asio;
  in_batch_ = true;
  given_back_ = 0;
  metrics_.messages_received += messages.size();
  std::vector<received_message> in;
  in.reserve(messages.size());
  for (auto& m : messages) {
    in.push_back({std::move(m.message_id), std::move(m.receipt_handle), std::move(m.body), m.receive_count().value_or(0)});
  }
  batch_ = batch::plan(std::move(in), filter_);
  deleted_.assign(batch_.messages().size(), false);
  for (auto const& o : batch_.objects())
    if (auto t = parse_event_time(o.event_time)) lag_.received(detail::lag_id(o), *t);
  for (std::size_t m = 0; m < batch_.plans().size(); ++m) {
    switch (batch_.plans()[m].verdict) {
      case message_verdict::test_event:
        ++metrics_.test_events;
        ++metrics_.messages_ignored;
        log(log_level::info, "test_event", "s3:TestEvent " + batch_.messages()[m].message_id + " deleted",
            {{"message_id", batch_.messages()[m].message_id}});
        break;
      case message_verdict::not_created:
      case message_verdict::no_match:
      case message_verdict::own_ledger: ++metrics_.messages_ignored; break;
      case message_verdict::malformed:
        note_malformed(m);
        keeper_.release(batch_.messages()[m].receipt_handle);  // left for the redrive policy
        break;
      case message_verdict::work: break;
    }
  }

  auto ex = co_await asio::this_coro::executor;
  auto work = [this]() -> asio::awaitable<void> {
    co_await delete_messages(batch_.nothing_to_do(), "nothing to do");
    co_await work_objects();
  };
  // Named, not temporaries in the co_await (GCC 12: see s3/client.hpp).
  auto working = asio::co_spawn(ex, work(), asio::deferred);
  auto keeping = asio::co_spawn(ex, keep_visible(), asio::deferred);
  auto group = asio::experimental::make_parallel_group(std::move(working), std::move(keeping));
  auto [order, e_work, e_keep] =
      co_await std::move(group).async_wait(asio::experimental::wait_for_one(), awaited);
  (void)e_keep;
  if (order[0] == 1) {
    batch_.abandon("stopped before the batch was done");
    log(log_level::warning, "abandoned", "stop grace over: the batch in work is left undeleted");
  } else if (e_work) {
    // Only a bug or an allocation failure gets here: nothing is deleted
    // that was not done; the rest comes back.
    batch_.abandon("internal error");
    try {
      std::rethrow_exception(e_work);
    } catch (std::exception const& x) {
      log(log_level::error, "internal_error", x.what());
    } catch (...) {
      log(log_level::error, "internal_error", "unknown exception");
    }
  }
  for (std::size_t m = 0; m < batch_.messages().size(); ++m) {
    if (deleted_[m]) continue;
    ++metrics_.messages_kept;
    if (batch_.plans()[m].verdict != message_verdict::work) continue;  // malformed: logged once already
    std::string why;
    for (auto o : batch_.plans()[m].objects)
      if (!settled_ok(batch_.objects()[o].outcome))
        why += (why.empty() ? "" : "; ") + detail::object_uri(batch_.objects()[o]) + ": " + batch_.objects()[o].reason;
    log(log_level::warning, "kept", "message " + batch_.messages()[m].message_id + " kept: " + why,
        {{"message_id", batch_.messages()[m].message_id},
         {"receive_count", std::to_string(batch_.messages()[m].receive_count)}});
  }
  // Settled objects stop counting for the oldest unregistered age; failed
  // ones count on until their message is due back.
  for (auto const& o : batch_.objects()) {
    if (settled_ok(o.outcome)) {
      lag_.settled(detail::lag_id(o));
      continue;
    }
    std::uint64_t receives = 0;
    for (auto m : o.messages) receives = std::max(receives, batch_.messages()[m].receive_count);
    lag_.failed(detail::lag_id(o), clock::now(),
                stopping_ ? std::chrono::seconds(0) : backoff_visibility(cfg_.on_failure, receives));
  }
  // Stopping: every message not deleted goes back at once; else those
  // naming a failed object get their back-off, counted from the receive:
  // one invisible that long already (a first receive's) needs no request.
  auto settled = settle_backoffs(plan_release(batch_, deleted_, stopping_, cfg_.on_failure), keeper_, received, clock::now());
  for (auto const& e : settled.in_place) note_backed_off(e);
  for (auto const& m : batch_.messages()) keeper_.release(m.receipt_handle);  // those received ahead stay held
  co_await release_messages(std::move(settled.send));
  in_batch_ = false;
  given_back_ = 0;
}

template <queue_client Queue>
boost::asio::awaitable<void> watcher<Queue>::work_objects() {
  namespace asio = boost::asio;
  auto const n = batch_.objects().size();
  if (n == 0) co_return;
  // Catch up first, so that objects other replicas registered meanwhile
  // are dropped before their --exec; the commit catches up anyway.
  auto refresh = [this]() { return l_.async_refresh(awaited); };
  auto caught_up = co_await retry_denied<result<ledger::refresh_result>>(refresh, "ledger refresh", stage::ledger);
  if (!caught_up) {
    metrics_.count_error(stage::ledger, caught_up.error());
    log(log_level::warning, "ledger_refresh_failed", "ledger " + l_.location() + ": " + caught_up.error().what());
  }

  auto ex = co_await asio::this_coro::executor;
  auto next = std::make_shared<std::size_t>(0);
  auto worker = [this, next, n]() -> asio::awaitable<void> {
    while (*next < n) co_await check_object((*next)++);
  };
  auto const workers = std::max<std::size_t>(1, std::min<std::size_t>(cfg_.head_concurrency, n));
  using op_type = decltype(asio::co_spawn(ex, worker(), asio::deferred));
  std::vector<op_type> ops;
  ops.reserve(workers);
  for (std::size_t i = 0; i < workers; ++i) ops.push_back(asio::co_spawn(ex, worker(), asio::deferred));
  auto [order, excs] = co_await asio::experimental::make_parallel_group(std::move(ops))
                           .async_wait(asio::experimental::wait_for_all(), awaited);
  (void)order;
  for (auto& x : excs)
    if (x) std::rethrow_exception(x);
  co_await commit_batch();
  co_await delete_messages(batch_.deletable(), "done");
}

// Object i of the batch in work failed: counted, its outcome set (its
// messages are kept, then backed off), and its place in receiving ahead
// given back, so the next batch holds as many messages that can commit
// (watcher.hpp). Not when receiving ahead is off, nor beyond
// cfg.receive_ahead places a batch.
template <queue_client Queue>
void watcher<Queue>::fail_object(std::size_t i, std::string why) {
  ++metrics_.objects_failed;
  batch_.set_outcome(i, object_outcome::failed, std::move(why));
  if (!in_batch_ || cfg_.receive_ahead == 0 || given_back_ >= cfg_.receive_ahead) return;
  ++given_back_;
  room_.cancel();
}

template <queue_client Queue>
boost::asio::awaitable<void> watcher<Queue>::check_object(std::size_t i) {
  auto& w = batch_.object(i);
  std::string const uri = detail::object_uri(w);
  std::vector<std::pair<std::string_view, std::string>> const where = {{"bucket", w.bucket}, {"key", w.key}};
  if (w.removal) {
    // Nothing to look at: the commit records it, by the rules of its
    // sequencer (an older removal than the key's latest event is stale).
    if (auto v = ledger::validate_entry(detail::entry_of(w)); !v) {
      metrics_.count_error(stage::head, v.error());
      fail_object(i, v.error().what());
      log(log_level::warning, "failed", uri + ": " + v.error().what(), where);
      co_return;
    }
    if (ledger::judge(l_.entries(), nullptr, ledger::view_of(detail::entry_of(w))) == ledger::verdict::stale) {
      ++metrics_.stale_events;
      batch_.set_outcome(i, object_outcome::stale);
      log(log_level::info, "stale", "the removal of " + uri + " is older than the ledger's latest event for it", where);
      co_return;
    }
    batch_.set_outcome(i, object_outcome::to_commit);
    co_return;
  }
  s3::read_conditions cond;
  cond.if_match = w.etag;
  // A version named by its event is checked as itself, not as whatever
  // version is current now.
  cond.version_id = w.version_id;
  auto head = [this, &w, &cond]() { return s3_.async_head_object(w.bucket, w.key, cond, awaited); };
  std::string const what = "HeadObject " + uri;
  auto h = co_await retry_denied<result<s3::get_result>>(head, what, stage::head);
  if (!h) {
    auto const& ec = h.error().code;
    if (ec == make_error_code(errc::not_found) || ec == make_error_code(errc::precondition_failed)) {
      bool const gone = ec == make_error_code(errc::not_found);
      batch_.set_outcome(i, gone ? object_outcome::vanished : object_outcome::replaced, h.error().what());
      ++metrics_.objects_skipped;
      log(log_level::info, gone ? "vanished" : "replaced",
          uri + (gone ? " is gone (deleted since its event): skipped" : " was replaced since its event: skipped"), where);
      co_return;
    }
    metrics_.count_error(stage::head, h.error());
    fail_object(i, h.error().what());
    log(log_level::warning, "failed", what + ": " + h.error().what(), where);
    co_return;
  }
  w.head_etag = h->info.etag;
  w.head_version_id = h->info.version_id;
  w.head_size = h->info.size;
  // HeadObject asks for the object's checksums; the ledger keeps the first.
  if (!h->info.checksums.empty()) {
    w.head_checksum_algorithm = h->info.checksums.front().alg;
    w.head_checksum = h->info.checksums.front().value;
  }
  auto e = detail::entry_of(w);
  if (e.checksum.size() > ledger::max_checksum_bytes) {  // not one S3 sends: kept out of the entry
    e.checksum_algorithm.reset();
    e.checksum.clear();
    w.head_checksum_algorithm.reset();
    w.head_checksum.clear();
  }
  if (auto v = ledger::validate_entry(e); !v) {
    metrics_.count_error(stage::head, v.error());
    fail_object(i, v.error().what());
    log(log_level::warning, "failed", uri + ": " + v.error().what(), where);
    co_return;
  }
  switch (ledger::judge(l_.entries(), nullptr, ledger::view_of(e))) {
    case ledger::verdict::already:
      ++metrics_.duplicates_skipped;
      batch_.set_outcome(i, object_outcome::already);
      log(log_level::info, "already", uri + " is registered already", where);
      co_return;
    case ledger::verdict::stale:
      ++metrics_.stale_events;
      batch_.set_outcome(i, object_outcome::stale);
      log(log_level::info, "stale", "the event of " + uri + " is older than the ledger's latest event for it", where);
      co_return;
    case ledger::verdict::add: break;
  }
  if (hooks_.exec) {
    ++metrics_.exec_runs;
    auto ran = co_await hooks_.exec(w);
    if (!ran) {
      ++metrics_.exec_failures;
      metrics_.count_error(stage::exec, ran.error());
      fail_object(i, "--exec: " + ran.error().what());
      log(log_level::warning, "exec_failed", uri + ": --exec: " + ran.error().what(), where);
      co_return;
    }
  }
  batch_.set_outcome(i, object_outcome::to_commit);
}

template <queue_client Queue>
boost::asio::awaitable<void> watcher<Queue>::commit_batch() {
  auto const idx = batch_.to_commit();
  if (idx.empty()) co_return;
  std::vector<ledger::entry> entries;
  entries.reserve(idx.size());
  for (auto i : idx) entries.push_back(detail::entry_of(batch_.objects()[i]));
  ledger::commit_params cp;
  cp.writer = cfg_.writer;
  auto const start = clock::now();
  auto commit = [this, &entries, &cp]() { return l_.async_commit(entries, cp, awaited); };
  std::string const what = "commit to " + l_.location();
  auto r = co_await retry_denied<result<ledger::commit_result>>(commit, what, stage::commit);
  if (!r) {
    metrics_.count_error(stage::commit, r.error());
    metrics_.objects_failed += idx.size();
    batch_.commit_failed("commit: " + r.error().what());
    log(log_level::error, "commit_failed", what + ": " + r.error().what() + " (" + std::to_string(idx.size()) +
                                               " objects; their messages are kept)");
    co_return;
  }
  metrics_.observe_commit(clock::now() - start);
  if (r->wrote) ++metrics_.commits;
  metrics_.commit_conflicts += r->conflicts;
  metrics_.commit_retries += r->writes > 1 ? r->writes - 1 : 0;
  metrics_.commit_lost_races += r->lost_races;
  batch_.commit_confirmed();
  // Two work items can be one object: messages that name it with different
  // event identities (an S3 event with its ETag, an SNS or EventBridge copy
  // without) both reach the commit with the entry HEAD gave. The commit
  // holds it once, and so it is reported once, like an object already
  // registered when its second message comes in a later batch.
  std::vector<bool> reported(r->committed.size(), false);
  for (auto i : idx) {
    auto const e = detail::entry_of(batch_.objects()[i]);
    auto const same = [&](ledger::entry const& c) { return same_identity(c, e) && c.removal == e.removal; };
    auto const found = std::find_if(r->committed.begin(), r->committed.end(), same);
    auto const& w = batch_.objects()[i];
    bool const elsewhere = found == r->committed.end();
    if (elsewhere && std::find_if(r->stale.begin(), r->stale.end(), same) != r->stale.end()) {
      batch_.set_outcome(i, object_outcome::stale);
      ++metrics_.stale_events;
      log(log_level::info, "stale",
          detail::object_uri(w) + ": its event is older than the ledger's latest event for it (learnt at the commit)",
          {{"bucket", w.bucket}, {"key", w.key}});
      continue;
    }
    auto const slot = static_cast<std::size_t>(found - r->committed.begin());
    if (elsewhere || reported[slot]) {
      batch_.set_outcome(i, object_outcome::already);
      ++metrics_.duplicates_skipped;
      log(log_level::info, "already",
          detail::object_uri(w) + (elsewhere ? " was registered by another writer"
                                             : " was named by another message of this batch too: registered once"),
          {{"bucket", w.bucket}, {"key", w.key}});
      continue;
    }
    reported[slot] = true;
    if (w.removal) {
      ++metrics_.removals_committed;
      if (hooks_.registered) hooks_.registered(w, r->number);
      log(log_level::info, "removed", detail::object_uri(w) + " removed in commit " + std::to_string(r->number),
          {{"bucket", w.bucket}, {"key", w.key}, {"commit", std::to_string(r->number)}});
      continue;
    }
    ++metrics_.objects_committed;
    if (auto t = parse_event_time(w.event_time))
      metrics_.observe_lag(std::chrono::time_point_cast<std::chrono::milliseconds>(std::chrono::system_clock::now()) - *t);
    if (hooks_.registered) hooks_.registered(w, r->number);
    log(log_level::info, "registered", detail::object_uri(w) + " registered in commit " + std::to_string(r->number),
        {{"bucket", w.bucket}, {"key", w.key}, {"etag", w.head_etag}, {"commit", std::to_string(r->number)}});
  }
  if (r->wrote)
    log(log_level::info, "commit",
        "commit " + std::to_string(r->number) + ": " + std::to_string(r->committed.size()) + " entries, " +
            std::to_string(r->writes) + " write attempts",
        {{"commit", std::to_string(r->number)}, {"entries", std::to_string(r->committed.size())},
         {"writes", std::to_string(r->writes)}, {"conflicts", std::to_string(r->conflicts)}});
  if (!r->checkpoint_error.empty()) log(log_level::warning, "checkpoint_failed", r->checkpoint_error);
}

template <queue_client Queue>
boost::asio::awaitable<void> watcher<Queue>::delete_messages(std::vector<std::size_t> const& indices, char const* why) {
  auto handles = receipt_handles(batch_, indices);
  if (handles.empty()) co_return;
  deletion d(std::move(handles));
  while (auto req = d.next()) {
    auto p = d.params(url_, *req);
    auto op = [this, &p]() { return q_.async_call(p, awaited); };
    auto r = co_await retry_denied<result<sqs::batch_result>>(op, "DeleteMessageBatch", stage::remove);
    if (r) {
      d.on_reply(*req, *r);
      continue;
    }
    d.on_error(*req, r.error());
    metrics_.count_error(stage::remove, r.error());
    if (stopping_) break;
    co_await sleep(std::chrono::milliseconds(500));
  }
  for (auto m : indices) {
    auto const& h = batch_.messages()[m].receipt_handle;
    auto const pos = std::find(d.handles().begin(), d.handles().end(), h) - d.handles().begin();
    if (static_cast<std::size_t>(pos) < d.handles().size() && d.removed(static_cast<std::size_t>(pos)) && !deleted_[m]) {
      deleted_[m] = true;
      ++metrics_.messages_deleted;
      keeper_.release(h);
    }
  }
  for (auto const& f : d.failures())
    log(log_level::warning, "delete_failed", std::string("DeleteMessageBatch (") + why + "): " + f);
}

template <queue_client Queue>
void watcher<Queue>::note_malformed(std::size_t m) {
  ++metrics_.malformed_messages;
  auto const& msg = batch_.messages()[m];
  auto const& reason = batch_.plans()[m].reason;
  error e(errc::malformed_reply, reason);
  metrics_.count_error(stage::parse, e);
  if (!malformed_seen_.insert(msg.message_id).second) return;
  malformed_order_.push_back(msg.message_id);
  if (malformed_order_.size() > cfg_.malformed_memory) {
    malformed_seen_.erase(malformed_order_.front());
    malformed_order_.pop_front();
  }
  log(log_level::warning, "malformed", "message " + msg.message_id + " is no S3 event (kept for the redrive policy): " + reason,
      {{"message_id", msg.message_id}, {"receive_count", std::to_string(msg.receive_count)}});
}

}  // namespace floe::watch
