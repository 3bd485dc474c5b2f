// watch: S3 object events from an SQS queue, each new object that matches
// registered exactly once in a ledger (floe::watch, docs/watching.md).

#include "../context.hpp"
#include "../output.hpp"
#include "../s3_uri.hpp"
#include "../verbs.hpp"

#include <floe/ledger/format.hpp>
#include <floe/sqs/queue.hpp>
#include <floe/watch/pattern.hpp>

#include "../cli_session.hpp"
#include "../watch_run.hpp"

#include <floe/s3/client.hpp>
#include <floe/sqs/client.hpp>

#include <limits>

namespace floe::cli {

namespace {

namespace asio = boost::asio;

// S3 and SQS from one session: one configuration and one credential cache,
// so a revocation costs one STS call however many requests are refused.
asio::awaitable<int> cmd_watch(context& x) {
  auto const& g = x.g;
  auto ex = co_await asio::this_coro::executor;
  auto s = make_cli_session(x);
  if (!s) co_return fail(x, s.error(), "configuration", "");
  s3::client_config cfg;
  cfg.addressing.endpoint_url = g.endpoint_url;
  cfg.addressing.region = g.region;
  if (g.path_style) cfg.addressing.style = s3::addressing_style::path;
  auto s3c = s3::client::create(ex, **s, std::move(cfg));
  if (!s3c) co_return fail(x, s3c.error(), "configuration", "");
  sqs::client_options o;
  o.endpoint_url = g.endpoint_url;
  auto q = sqs::client::create(ex, **s, o);
  if (!q) co_return fail(x, q.error(), "configuration", "");
  context shared{**s3c, x.cl, x.g, x.errors};
  co_return co_await run_watch(shared, **q);
}

result<void> check_watch(command_line const& cl) {
  if (cl.queue.empty()) return usage("watch needs --queue QUEUE (a queue URL or name)");
  if (auto q = sqs::parse_queue_ref(cl.queue); !q) return usage("--queue: " + q.error().diag.message);
  if (cl.ledger.empty()) return usage("watch needs --ledger s3://BUCKET[/PREFIX]");
  auto where = parse_s3_uri(cl.ledger);
  if (!where) return where.error();
  if (auto p = ledger::normalize_prefix(where->key); !p)
    return usage("--ledger " + printable(cl.ledger) + ": " + p.error().diag.message);
  for (auto const& a : cl.args)
    if (auto p = watch::pattern::parse(a); !p) return usage(p.error().diag.message);
  if (cl.log_format != "text" && cl.log_format != "json") return usage("--log-format takes text or json");
  return {};
}

result<void> set_visibility(command_line& cl, std::string_view value) {
  std::uint64_t n = 0;
  if (!parse_unsigned(value, n) || n < 10 || n > 43200) return usage("--visibility-timeout takes 10 to 43200 seconds");
  cl.visibility = std::chrono::seconds(n);
  return {};
}

// DURATION: a whole number and a unit, s, m or h (10s, 15m, 1h), 1 s to 7 days.
result<void> set_reconcile_every(command_line& cl, std::string_view value) {
  auto bad = [] { return usage("--reconcile-every takes a duration such as 10s, 15m or 1h (1s to 7 days)"); };
  if (value.size() < 2) return bad();
  std::uint64_t n = 0;
  if (!parse_unsigned(value.substr(0, value.size() - 1), n)) return bad();
  std::uint64_t unit = 0;
  switch (value.back()) {
    case 's': unit = 1; break;
    case 'm': unit = 60; break;
    case 'h': unit = 3600; break;
    default: return bad();
  }
  if (n == 0 || n > 7 * 24 * 3600 / unit) return bad();
  cl.reconcile_every = std::chrono::seconds(n * unit);
  return {};
}

result<void> set_watch_concurrency(command_line& cl, std::string_view value) {
  std::uint64_t n = 0;
  if (!parse_unsigned(value, n) || n < 1 || n > 64) return usage("--concurrency takes 1 to 64");
  cl.concurrency = static_cast<unsigned>(n);
  return {};
}

result<void> set_receive_ahead(command_line& cl, std::string_view value) {
  std::uint64_t n = 0;
  if (!parse_unsigned(value, n) || n > 1000) return usage("--receive-ahead takes 0 to 1000 messages");
  cl.receive_ahead = static_cast<std::size_t>(n);
  return {};
}

result<void> set_nonempty(command_line& cl, std::string_view value, std::string command_line::*field, char const* name) {
  if (value.empty()) return usage(std::string(name) + " takes a value");
  cl.*field = std::string(value);
  return {};
}

constexpr option_spec queue{"queue", 0, "QUEUE", "the queue: its URL, or its name (looked up once)",
                            [](command_line& cl, std::string_view v) { return set_nonempty(cl, v, &command_line::queue, "--queue"); }};
constexpr option_spec ledger_option{
    "ledger", 0, "LEDGER", "s3://BUCKET[/PREFIX]: where objects are registered\n(created if absent; its own keys are never acted on)",
    [](command_line& cl, std::string_view v) { return set_nonempty(cl, v, &command_line::ledger, "--ledger"); }};
constexpr option_spec exec{"exec", 0, "CMD",
                           "run CMD (/bin/sh -c) for each new object before its commit, with\nFLOE_BUCKET, FLOE_KEY, FLOE_URI, FLOE_ETAG, FLOE_SIZE,\n"
                           "FLOE_VERSION_ID, FLOE_EVENT_TIME, FLOE_EVENT_NAME set; a non-zero\nexit fails the object",
                           [](command_line& cl, std::string_view v) { return set_nonempty(cl, v, &command_line::exec, "--exec"); }};
constexpr option_spec jsonl{"jsonl", 0, "", "print each object registered as one JSON line on stdout",
                            set_flag<&command_line::jsonl>};
constexpr option_spec metrics{
    "metrics", 0, "ADDRESS:PORT", "serve /metrics (Prometheus) and /healthz there (port 0: any free)",
    [](command_line& cl, std::string_view v) { return set_nonempty(cl, v, &command_line::metrics, "--metrics"); }};
constexpr option_spec log_format{"log-format", 0, "FORMAT", "the log on stderr: text (default) or json",
                                 set_text<&command_line::log_format>};
constexpr option_spec visibility{"visibility-timeout", 0, "S",
                                 "visibility asked for on receive and kept up while in work\n(10-43200, default 60)",
                                 set_visibility};
constexpr option_spec concurrency{"concurrency", 0, "N", "objects HEADed at once (1-64, default 8)", set_watch_concurrency};
constexpr option_spec reconcile_every{"reconcile-every", 0, "DURATION",
                                      "also list each PATTERN's prefix this often (10s, 15m, 1h) and\n"
                                      "register the matching objects the ledger lacks",
                                      set_reconcile_every};
constexpr option_spec removals{"removals", 0, "",
                               "also act on ObjectRemoved events: write each removal to the\nledger (no --exec), "
                               "so that an object created again is registered again",
                               set_flag<&command_line::removals>};
constexpr option_spec receive_ahead{"receive-ahead", 0, "N",
                                    "messages received ahead while a batch is in work, all of\n"
                                    "them the next batch, and one more for each of its objects\n"
                                    "that failed (0-1000, default 30; 0: receive only\nbetween batches)",
                                    set_receive_ahead};
constexpr option_spec const* watch_options[] = {&queue, &ledger_option, &exec, &jsonl, &metrics, &log_format,
                                                &visibility, &concurrency, &reconcile_every, &removals,
                                                &receive_ahead};

constexpr verb_spec watch_verbs[] = {
    {.name = "watch",
     .min_args = 1,
     .max_args = std::numeric_limits<unsigned>::max(),
     .operands = "PATTERN...",
     .summary = "register new objects from S3 events on a queue, exactly once",
     .description =
         "Receives S3 ObjectCreated events from QUEUE (S3 notifications, through SNS or\n"
         "not, or EventBridge), HEADs each object that matches a PATTERN, runs --exec,\n"
         "and registers it in LEDGER exactly once; only then are its messages deleted.\n"
         "PATTERN is s3://BUCKET/KEY-PATTERN: '*' within a path segment, '**' across\n"
         "segments (s3://lake/raw/**/*.parquet). A message that is no S3 event is\n"
         "kept for the queue's redrive policy; one that asks for nothing is deleted;\n"
         "one naming an object that failed backs off (its visibility doubling with\n"
         "each receive). Runs until SIGINT or SIGTERM, then hands back the messages\n"
         "it holds (visible again at once) and exits 0 (within 10 s).\n",
     .options = watch_options,
     .check = check_watch,
     .run = cmd_watch,
     .own_session = true},
};

}  // namespace

namespace verbs {
extern family const watch = watch_verbs;  // registered in verbs.cpp
}  // namespace verbs

}  // namespace floe::cli
