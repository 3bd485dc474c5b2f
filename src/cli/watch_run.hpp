#pragma once
// floe watch, run over any queue client with sqs::client's API
// (watch::queue_client): the ledger, the watcher, --exec, --jsonl,
// --metrics, the log, and SIGINT/SIGTERM.

#include "context.hpp"
#include "ledger_text.hpp"
#include "output.hpp"
#include "s3_uri.hpp"
#include "watch_exec.hpp"
#include "watch_http.hpp"
#include "watch_log.hpp"

#include <floe/ledger/ledger.hpp>
#include <floe/watch/metrics.hpp>
#include <floe/watch/watcher.hpp>

#include <boost/asio/signal_set.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <csignal>
#include <cstdio>
#include <memory>
#include <string>

namespace floe::cli {

template <watch::queue_client Queue>
boost::asio::awaitable<int> run_watch(context& x, Queue& q) {
  namespace asio = boost::asio;
  auto const& cl = x.cl;
  auto where = parse_s3_uri(cl.ledger);  // checked by check_watch
  if (!where) co_return usage_error(x, where.error().diag.message);
  ledger::ledger_config lcfg;
  lcfg.writer = default_writer();
  auto opened = ledger::ledger::open(x.c, where->bucket, where->key, std::move(lcfg));
  if (!opened) co_return usage_error(x, opened.error().diag.message);
  auto& l = **opened;

  watch::watcher_config cfg;
  auto ref = sqs::parse_queue_ref(cl.queue);
  if (!ref) co_return usage_error(x, ref.error().diag.message);
  cfg.queue = std::move(*ref);
  for (auto const& a : cl.args) {
    auto p = watch::pattern::parse(a);
    if (!p) co_return usage_error(x, p.error().diag.message);
    cfg.patterns.push_back(std::move(*p));
  }
  cfg.head_concurrency = cl.concurrency;
  cfg.visibility_timeout = cl.visibility;
  cfg.reconcile_every = cl.reconcile_every;
  cfg.removals = cl.removals;
  cfg.receive_ahead = cl.receive_ahead;
  cfg.writer = l.config().writer;

  log_format const fmt = cl.log_format == "json" ? log_format::json : log_format::text;
  watch::watch_hooks hooks;
  hooks.log = [fmt](watch::log_event e) { write_stderr(log_line(fmt, e)); };
  if (!cl.exec.empty()) {
    std::string const cmd = cl.exec;
    hooks.exec = [cmd](watch::object_work const& w) { return run_exec(cmd, w); };
  }
  bool stdout_failed = false;
  if (cl.jsonl) {
    std::string const loc = l.location();
    hooks.registered = [loc, &stdout_failed](watch::object_work const& w, std::uint64_t commit) {
      if (!write_stdout(registered_line(w, commit, loc))) stdout_failed = true;
      std::fflush(stdout);
    };
  }

  watch::watcher<Queue> w(q, x.c, l, std::move(cfg), std::move(hooks));
  auto ex = co_await asio::this_coro::executor;
  asio::signal_set signals(ex, SIGINT, SIGTERM);
  signals.async_wait([&w](boost::system::error_code ec, int) {
    if (!ec) w.stop();
  });

  std::unique_ptr<metrics_server> server;
  if (!cl.metrics.empty()) {
    auto started = metrics_server::start(ex, cl.metrics, [&w, &x](std::string_view target) {
      if (target == "/metrics") {
        auto h = w.current_health();
        auto m = w.counters();
        m.hedges_sent = x.c.hedges().sent;
        m.hedges_won = x.c.hedges().won;
        return http_answer{200, "text/plain; version=0.0.4; charset=utf-8", watch::render_prometheus(m, h)};
      }
      if (target == "/healthz") {
        auto [status, body] = watch::render_health(w.current_health());
        return http_answer{status, "text/plain; charset=utf-8", std::move(body)};
      }
      return http_answer{404, "text/plain; charset=utf-8", "not found: /metrics and /healthz are served\n"};
    });
    if (!started) co_return fail(x, started.error(), "Watch", cl.metrics);
    server = std::move(*started);
    auto ep = server->local_endpoint();
    std::string const addr = ep.address().to_string() + ":" + std::to_string(ep.port());
    write_stderr(log_line(fmt, {watch::log_level::info, "metrics", "serving /metrics and /healthz on " + addr,
                                {{"address", addr}}}));
  }

  auto r = co_await w.run();
  boost::system::error_code ignored;
  signals.cancel(ignored);
  if (server) server->stop();
  if (!r) co_return fail(x, r.error(), "Watch", cl.queue);
  co_return stdout_failed ? exit_error : exit_ok;
}

}  // namespace floe::cli
