// ledger: the set of objects registered exactly once, kept on S3 as a log
// of create-only commits (floe::ledger, docs/ledger.md): create one,
// register objects, show its history and its entries, verify it.

#include "../context.hpp"
#include "../interrupt.hpp"
#include "../job_pool.hpp"
#include "../json_writer.hpp"
#include "../ledger_reconcile.hpp"
#include "../ledger_text.hpp"
#include "../op_trace.hpp"
#include "../output.hpp"
#include "../s3_uri.hpp"
#include "../verbs.hpp"

#include <floe/json/writer.hpp>
#include <floe/ledger/ledger.hpp>
#include <floe/watch/pattern.hpp>

#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <cstdio>
#include <limits>
#include <set>
#include <utility>

namespace floe::cli {

namespace {

namespace asio = boost::asio;
using boost::asio::awaitable;

bool is_subcommand(std::string_view s) {
  return s == "init" || s == "add" || s == "log" || s == "ls" || s == "verify" || s == "reconcile";
}

// "bucket/prefix", as errors name the ledger.
std::string resource(ledger::ledger const& l) { return resource_of(l.bucket(), l.prefix()); }

void warn(std::string_view what, std::string_view message) {
  std::string line = "floe: warning: ledger " + std::string(what) + ": " + printable(message) + "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
}

awaitable<int> cmd_init(context& x, ledger::ledger& l) {
  auto r = co_await l.async_init(asio::use_awaitable);
  if (!r) co_return fail(x, r.error(), "LedgerInit", resource(l));
  std::string out;
  if (x.g.json) {
    json_writer w;
    w.begin_object().field("ledger", l.location()).field("created", r->created);
    w.field("head", l.head()).field("entries", l.size()).end_object();
    out = w.line();
  } else if (r->created) {
    out = "created ledger " + printable(l.location()) + "\n";
  } else {
    out = "ledger " + printable(l.location()) + " exists: head commit " + std::to_string(l.head()) + ", " +
          std::to_string(l.size()) + " entries\n";
  }
  co_return write_stdout(out) ? exit_ok : exit_error;
}

// Every object is HEADed (ETag, size, version id: the entry's identity);
// any that cannot be read fails the whole batch and nothing is committed,
// so an exit code other than 0 always means "the ledger is as it was".
awaitable<int> cmd_add(context& x, ledger::ledger& l) {
  std::vector<s3_uri> objects;
  std::set<std::pair<std::string, std::string>> seen;
  for (std::size_t i = 2; i < x.cl.args.size(); ++i) {
    auto u = parse_s3_uri(x.cl.args[i]);  // checked by check_ledger
    if (!u) co_return usage_error(x, u.error().diag.message);
    if (seen.emplace(u->bucket, u->key).second) objects.push_back(std::move(*u));
  }
  // The ledger first: without one, no object is read.
  auto loaded = co_await l.async_refresh(asio::use_awaitable);
  if (!loaded) co_return fail(x, loaded.error(), "LedgerRefresh", resource(l));

  std::vector<ledger::entry> batch(objects.size());
  auto head = [&](std::size_t i) -> awaitable<int> {
    auto const& u = objects[i];
    op_trace trace(x, "HeadObject", "HEAD", u.bucket, std::string_view(u.key));
    auto h = co_await x.c.async_head_object(u.bucket, u.key, asio::use_awaitable);
    trace.done(h);
    if (!h) co_return fail(x, h.error(), "HeadObject", resource_of(u.bucket, u.key));
    batch[i] = {u.bucket, u.key, h->info.etag, h->info.version_id, h->info.size};
    if (auto v = ledger::validate_entry(batch[i]); !v) co_return fail(x, v.error(), "HeadObject", resource_of(u.bucket, u.key));
    co_return exit_ok;
  };
  job_pool pool(co_await asio::this_coro::executor, x.cl.concurrency);
  co_await asio::this_coro::throw_if_cancelled(false);  // the HEADs use `batch`: drain them on a signal
  for (std::size_t i = 0; i < objects.size() && interrupted() == 0; ++i) {
    auto job = [&head, i] { return head(i); };
    co_await pool.submit(job);
  }
  int const rc = co_await pool.drain();
  if (interrupted() != 0) co_return exit_error;  // some objects never read: nothing to commit (the exit code says why)
  if (rc != exit_ok) {
    warn("add", "nothing committed: every object must be readable (the ledger " + l.location() + " is unchanged)");
    co_return rc;
  }

  auto r = co_await l.async_commit(std::move(batch), asio::use_awaitable);
  if (!r) co_return fail(x, r.error(), "LedgerCommit", resource(l));
  if (!r->checkpoint_error.empty()) warn("add", r->checkpoint_error);
  std::string out;
  if (x.g.json) {
    json_writer w;
    w.begin_object().field("ledger", l.location()).key("commit");
    if (r->wrote) w.value(r->number);
    else w.null();
    w.key("committed").begin_array();
    for (auto const& e : r->committed) write_entry(w, ledger::view_of(e));
    w.end_array().key("already").begin_array();
    for (auto const& e : r->already) write_entry(w, ledger::view_of(e));
    w.end_array().field("writer", l.config().writer).field("write_attempts", r->writes);
    w.field("lost_races", r->lost_races).field("conflicts", r->conflicts).end_object();
    out = w.line();
  } else {
    for (auto const& e : r->committed) out += "added " + entry_line(ledger::view_of(e));
    for (auto const& e : r->already) out += "already " + entry_line(ledger::view_of(e));
    std::string const already = std::to_string(r->already.size()) + " already registered";
    if (r->wrote)
      out += "commit " + std::to_string(r->number) + ": " + std::to_string(r->committed.size()) + " added, " + already + "\n";
    else
      out += "nothing new: " + already + "\n";
  }
  co_return write_stdout(out) ? exit_ok : exit_error;
}

awaitable<int> cmd_log(context& x, ledger::ledger& l) {
  ledger::history_cursor cursor(l);
  for (;;) {
    auto c = co_await cursor.async_next(asio::use_awaitable);
    if (!c) co_return fail(x, c.error(), "LedgerLog", resource(l));
    if (!*c) break;
    if (!write_stdout(x.g.json ? commit_json_line(**c) : commit_text(**c))) co_return exit_error;
  }
  if (cursor.next() == 0) {
    error e(errc::not_found, "ledger " + l.location() + ": no ledger here (commit 0 is missing; init creates it)");
    co_return fail(x, std::move(e), "LedgerLog", resource(l));
  }
  co_return exit_ok;
}

awaitable<int> cmd_ls(context& x, ledger::ledger& l) {
  auto r = co_await l.async_refresh(asio::use_awaitable);
  if (!r) co_return fail(x, r.error(), "LedgerRefresh", resource(l));
  auto const& set = l.entries();
  std::string out;
  // The live set: removed registrations and removals are not shown.
  for (std::size_t i = 0; i < set.size(); ++i) {
    auto const e = set.at(i);
    if (!e.removal && !e.removed) {
      if (x.g.json) {
        json_writer w;
        write_entry(w, e);
        out += w.line();
      } else {
        out += entry_line(e);
      }
    }
    if (out.size() >= 64 * 1024 || (i + 1 == set.size() && !out.empty())) {
      if (!write_stdout(out)) co_return exit_error;
      out.clear();
    }
  }
  co_return exit_ok;
}

awaitable<int> cmd_verify(context& x, ledger::ledger& l) {
  auto r = co_await l.async_verify(asio::use_awaitable);
  if (!r) co_return fail(x, r.error(), "LedgerVerify", resource(l));
  auto const& d = r->first_defect;
  std::string out;
  if (x.g.json) {
    json_writer w;
    w.begin_object().field("ledger", l.location()).field("ok", r->ok()).field("commits", r->commits);
    w.field("entries", r->entries).field("checkpoints_checked", r->checkpoints_checked).key("hint");
    if (r->hint) w.value(*r->hint);
    else w.null();
    w.key("defect");
    if (d) w.begin_object().field("kind", ledger::to_string(d->kind)).field("object", d->object).field("message", d->message).end_object();
    else w.null();
    w.end_object();
    out = w.line();
  } else {
    out = (d ? "defect: " : "ok: ") + printable(l.location()) + ": " + std::to_string(r->commits) + " commits, " +
          std::to_string(r->entries) + " entries, " + std::to_string(r->checkpoints_checked) + " checkpoints checked" +
          (r->hint ? ", hint " + std::to_string(*r->hint) : std::string(", no hint")) + "\n";
  }
  bool const written = write_stdout(out);
  if (d) {
    std::string line = "floe: ledger verify: " + std::string(ledger::to_string(d->kind)) + " at " +
                       printable(uri_of(l.bucket(), d->object)) + ": " + printable(d->message) + "\n";
    std::fwrite(line.data(), 1, line.size(), stderr);
    co_return exit_error;
  }
  co_return written ? exit_ok : exit_error;
}

awaitable<int> cmd_ledger(context& x) {
  auto u = parse_s3_uri(x.cl.args[1]);
  if (!u) co_return usage_error(x, u.error().diag.message);
  ledger::ledger_config cfg;
  cfg.writer = x.cl.writer.empty() ? default_writer() : x.cl.writer;
  auto opened = ledger::ledger::open(x.c, u->bucket, u->key, std::move(cfg));
  if (!opened) co_return usage_error(x, opened.error().diag.message);
  auto& l = **opened;
  std::string_view const sub = x.cl.args[0];
  if (sub == "init") co_return co_await cmd_init(x, l);
  if (sub == "add") co_return co_await cmd_add(x, l);
  if (sub == "log") co_return co_await cmd_log(x, l);
  if (sub == "ls") co_return co_await cmd_ls(x, l);
  if (sub == "reconcile") co_return co_await run_ledger_reconcile(x, l);
  co_return co_await cmd_verify(x, l);
}

// Everything that can be told from the command line alone, before a request.
result<void> check_ledger(command_line const& cl) {
  std::string_view const sub = cl.args[0];
  if (!is_subcommand(sub))
    return usage("unknown ledger command '" + printable(sub) + "' (init, add, log, ls, verify, reconcile)");
  if (sub == "add" && cl.args.size() < 3) return usage("ledger add needs the objects to register: s3://BUCKET/KEY...");
  bool const reconcile = sub == "reconcile";
  if (reconcile && cl.args.size() < 3)
    return usage("ledger reconcile needs the patterns to list: s3://BUCKET/PREFIX/**/*.parquet...");
  if (sub != "add" && !reconcile && cl.args.size() > 2)
    return usage("too many arguments: ledger " + std::string(sub) + " takes the ledger only");
  if (sub != "add" && sub != "init" && !reconcile && !cl.writer.empty())
    return usage("--writer applies to ledger init, add and reconcile");
  if (sub != "add" && !reconcile && cl.concurrency != command_line{}.concurrency)
    return usage("--concurrency applies to ledger add and reconcile");
  if (cl.args.size() - 2 > ledger::ledger::max_batch)
    return usage("at most " + std::to_string(ledger::ledger::max_batch) + " objects per ledger add (one commit)");
  auto where = parse_s3_uri(cl.args[1]);
  if (!where) return where.error();
  if (auto p = ledger::normalize_prefix(where->key); !p) return usage("ledger " + printable(cl.args[1]) + ": " + p.error().diag.message);
  for (std::size_t i = 2; reconcile && i < cl.args.size(); ++i)
    if (auto p = watch::pattern::parse(cl.args[i]); !p) return usage(p.error().diag.message);
  for (std::size_t i = 2; !reconcile && i < cl.args.size(); ++i) {
    auto u = parse_s3_uri(cl.args[i]);
    if (!u) return u.error();
    if (u->key.empty()) return usage("'" + printable(cl.args[i]) + "' names no object");
    if (!json::valid_utf8(u->key)) return usage("'" + printable(cl.args[i]) + "': a ledger holds keys of UTF-8 only");
  }
  return {};
}

result<void> set_writer(command_line& cl, std::string_view value) {
  if (value.empty() || value.size() > ledger::max_writer_bytes || !json::valid_utf8(value))
    return usage("--writer takes 1 to 1024 bytes of UTF-8");
  cl.writer = std::string(value);
  return {};
}

result<void> set_head_concurrency(command_line& cl, std::string_view value) {
  std::uint64_t n = 0;
  if (!parse_unsigned(value, n) || n < 1 || n > 64) return usage("--concurrency takes 1 to 64");
  cl.concurrency = static_cast<unsigned>(n);
  return {};
}

constexpr option_spec writer{"writer", 0, "NAME", "init, add, reconcile: the writer the commits record\n(default: floe@HOST/PID)",
                             set_writer};
constexpr option_spec concurrency{"concurrency", 0, "N", "add, reconcile: objects HEADed at once (1-64, default 8)",
                                  set_head_concurrency};
constexpr option_spec const* ledger_options[] = {&writer, &concurrency};

constexpr verb_spec ledger_verbs[] = {
    {.name = "ledger",
     .min_args = 2,
     .max_args = std::numeric_limits<unsigned>::max(),
     .operands = "init|add|log|ls|verify|reconcile LEDGER [OBJECT...|PATTERN...]",
     .summary = "a ledger of objects registered exactly once (docs/ledger.md)",
     .description =
         "LEDGER is s3://BUCKET[/PREFIX], OBJECT s3://BUCKET/KEY. A ledger is a log of\n"
         "numbered commit objects under PREFIX, each created with If-None-Match: *: the\n"
         "objects registered exactly once, however many writers there are.\n"
         "  init LEDGER          create an empty ledger (nothing happens if it exists)\n"
         "  add LEDGER OBJECT... HEAD each object (ETag, size, version id) and register\n"
         "                       those not registered yet in one commit; exit 0 when\n"
         "                       nothing was new. An object that cannot be read (exit 4\n"
         "                       when missing) fails the whole add: nothing is committed\n"
         "  log LEDGER           the commits: number, time, entries, writer\n"
         "  ls LEDGER            the live entries: SIZE ETAG VERSION URI\n"
         "  reconcile LEDGER PATTERN...\n"
         "                       list each PATTERN's literal prefix a page at a time and\n"
         "                       register every matching object the ledger lacks, as\n"
         "                       floe watch --reconcile-every does (one commit per page);\n"
         "                       exit 1 when a listing or an object failed\n"
         "  verify LEDGER        check the whole log and every checkpoint; exit 1 naming\n"
         "                       the first defect\n"
         "--json: init, add, verify and reconcile print one document; log and ls one object per\n"
         "line.\n",
     .options = ledger_options,
     .check = check_ledger,
     .run = cmd_ledger},
};

}  // namespace

namespace verbs {
extern family const ledger = ledger_verbs;  // registered in verbs.cpp
}  // namespace verbs

}  // namespace floe::cli
