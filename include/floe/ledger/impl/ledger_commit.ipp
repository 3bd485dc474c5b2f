#pragma once
// The ledger's commit runner: commit_machine over the S3 client, and the
// checkpoint and hint written after a commit that makes one due.
#include <floe/ledger/ledger.hpp>
#include <floe/s3/conditional.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace floe::ledger {

FLOE_DECL boost::asio::awaitable<result<commit_result>> ledger::run_machine(commit_machine& m) {
  namespace asio = boost::asio;
  auto st = m.start();
  while (st != commit_machine::step::done) {
    std::string const key = commit_key(prefix_, m.number());
    if (st == commit_machine::step::write) {
      s3::put_params p;
      p.if_none_match = "*";
      p.content_type = "application/json";
      http::body_source body = http::body_source::memory(m.body());
      auto o = co_await s3::async_put_conditional(c_, bucket_, key, body, p, asio::use_awaitable);
      double const r01 = random01();
      st = m.on_write(std::move(o), steady_now(), r01);
    } else if (st == commit_machine::step::read) {
      auto got = co_await get_optional(key);
      double const r01 = random01();
      st = m.on_read(std::move(got), steady_now(), r01);
    } else {
      asio::steady_timer t(c_.get_executor(), m.sleep());
      auto [ec] = co_await t.async_wait(asio::as_tuple(asio::use_awaitable));
      if (ec) {
        error e(ec);
        e.diag.message = "cancelled during back-off at commit " + std::to_string(m.number());
        co_return e;
      }
      st = m.on_slept(steady_now());
    }
  }
  auto& out = m.outcome();
  if (!out) {
    error e = out.error();
    if (e.diag.resource.empty()) e.diag.resource = bucket_ + "/" + commit_key(prefix_, m.number());
    co_return e;
  }
  co_return std::move(*out);
}

// Never fails the commit: a checkpoint not written now is written at a
// later one, and readers find their way without it.
FLOE_DECL boost::asio::awaitable<void> ledger::write_checkpoint(commit_result& r) {
  namespace asio = boost::asio;
  std::string const n = std::to_string(r.number);
  std::string data = encode_checkpoint(r.number, state_.entries());
  {
    s3::put_params p;
    p.if_none_match = "*";
    p.content_type = "application/x-ndjson";
    http::body_source body = http::body_source::memory(data);
    std::string const key = checkpoint_key(prefix_, r.number);
    auto o = co_await s3::async_put_conditional(c_, bucket_, key, body, p, asio::use_awaitable);
    if (!o) {
      r.checkpoint_error = "checkpoint " + n + " not written: " + o.error().what();
      co_return;
    }
    switch (s3::kind_of(*o)) {
      case s3::write_outcome_kind::written:
        r.checkpoint_written = true;
        break;
      case s3::write_outcome_kind::precondition_failed:
        co_return;  // another writer made it (the same bytes: it covers the same commits)
      default:
        r.checkpoint_error = "checkpoint " + n + " not written (" + std::string(s3::to_string(s3::kind_of(*o))) +
                             "): the next one due will be";
        co_return;
    }
  }
  data.clear();
  data.shrink_to_fit();
  std::string const hint = encode_hint(r.number);
  http::body_source body = http::body_source::memory(hint);
  s3::put_params p;
  p.content_type = "application/json";
  std::string const key = hint_key(prefix_);
  auto h = co_await c_.async_put_object(bucket_, key, body, p, asio::use_awaitable);
  if (!h) r.checkpoint_error = "the hint to checkpoint " + n + " was not written: " + h.error().what();
}

FLOE_DECL boost::asio::awaitable<result<commit_result>> ledger::run_commit(std::vector<entry>& entries,
                                                                          commit_params const& p) {
  if (entries.size() > max_batch)
    co_return failure(error(errc::invalid_argument, std::to_string(entries.size()) + " entries in one commit (at most " +
                                                        std::to_string(max_batch) + ")"),
                      "LedgerCommit");
  for (auto const& e : entries)
    if (auto v = validate_entry(e); !v) co_return failure(v.error(), "LedgerCommit");
  if (p.writer.size() > max_writer_bytes)
    co_return failure(error(errc::invalid_argument, "writer: longer than 1024 bytes"), "LedgerCommit");
  if (!loaded()) {
    refresh_result out;
    auto l = co_await load(out);
    if (!l) co_return failure(l.error(), "LedgerCommit");
    if (!loaded())
      co_return failure(error(errc::not_found, "no ledger here (commit 0 is missing; init creates it)"), "LedgerCommit");
  }
  commit_machine m(state_, std::move(entries), p.writer.empty() ? cfg_.writer : p.writer, new_write_id_base(), now_iso(),
                   cfg_.commit, steady_now());
  auto r = co_await run_machine(m);
  if (!r) co_return failure(r.error(), "LedgerCommit");
  if (r->wrote && checkpoint_due(r->number, state_.entries().size(), cfg_.checkpoints)) co_await write_checkpoint(*r);
  co_return r;
}

}  // namespace floe::ledger
