// floe ledger reconcile: the watcher's reconcile pass, run once over a
// ledger without a queue (docs/watching.md, "Backfills").

#include "ledger_reconcile.hpp"

#include "json_writer.hpp"
#include "output.hpp"
#include "s3_uri.hpp"
#include "watch_log.hpp"

#include <floe/watch/no_queue.hpp>
#include <floe/watch/watcher.hpp>

#include <boost/asio/signal_set.hpp>
#include <boost/asio/this_coro.hpp>

#include <csignal>
#include <string>

namespace floe::cli {

boost::asio::awaitable<int> run_ledger_reconcile(context& x, ledger::ledger& l) {
  namespace asio = boost::asio;
  watch::watcher_config cfg;
  for (std::size_t i = 2; i < x.cl.args.size(); ++i) {
    auto p = watch::pattern::parse(x.cl.args[i]);  // checked by check_ledger
    if (!p) co_return usage_error(x, p.error().diag.message);
    cfg.patterns.push_back(std::move(*p));
  }
  cfg.head_concurrency = x.cl.concurrency;
  cfg.writer = l.config().writer;
  cfg.queue_poll = std::chrono::seconds(0);

  // The pass touches no queue: the watcher gets one that builds nothing
  // and refuses every call.
  auto ex = co_await asio::this_coro::executor;
  watch::no_queue q;

  watch::watch_hooks hooks;
  // Warnings only (a failing listing or object): the summary says the rest.
  hooks.log = [](watch::log_event e) {
    if (e.level != watch::log_level::info) write_stderr(log_line(log_format::text, e));
  };
  watch::watcher<watch::no_queue> w(q, x.c, l, std::move(cfg), std::move(hooks));
  asio::signal_set signals(ex, SIGINT, SIGTERM);
  signals.async_wait([&w](boost::system::error_code ec, int) {
    if (!ec) w.stop();
  });
  auto r = co_await w.reconcile_now();
  boost::system::error_code ignored;
  signals.cancel(ignored);
  if (!r) co_return fail(x, r.error(), "LedgerReconcile", resource_of(l.bucket(), l.prefix()));
  bool const ok = r->failed == 0 && r->listing_error.empty() && !w.stopping();
  std::string out;
  if (x.g.json) {
    json_writer j;
    j.begin_object().field("ledger", l.location()).field("listed", r->listed).field("registered", r->registered);
    j.field("already", r->already).field("skipped", r->skipped).field("failed", r->failed).field("commits", r->commits);
    j.field("head", l.head()).field("entries", l.size()).key("listing_error");
    if (r->listing_error.empty()) j.null();
    else j.value(r->listing_error);
    j.field("ok", ok).end_object();
    out = j.line();
  } else {
    out = "reconciled " + printable(l.location()) + ": " + std::to_string(r->listed) + " listed, " +
          std::to_string(r->registered) + " registered, " + std::to_string(r->already) + " already, " +
          std::to_string(r->skipped) + " gone or replaced, " + std::to_string(r->failed) + " failed\n";
  }
  if (!write_stdout(out)) co_return exit_error;
  if (!r->listing_error.empty()) write_stderr("floe: ledger reconcile: " + printable(r->listing_error) + "\n");
  co_return ok ? exit_ok : exit_error;
}

}  // namespace floe::cli
