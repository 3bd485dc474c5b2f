#pragma once
// The ledger's runners: opening, loading from the newest checkpoint,
// catching up, init, reading one commit. (Commits: ledger_commit.ipp;
// verify: ledger_verify.ipp.)
#include <floe/ledger/ledger.hpp>

#include <boost/asio/error.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <random>

namespace floe::ledger {

FLOE_DECL result<std::unique_ptr<ledger>> ledger::open(s3::client& c, std::string_view bucket, std::string_view prefix,
                                                      ledger_config cfg) {
  if (bucket.empty() || bucket.size() > max_bucket_bytes || bucket.find('/') != std::string_view::npos)
    return error(errc::invalid_argument, "ledger bucket \"" + std::string(bucket.substr(0, 300)) + "\": not a bucket name");
  auto p = normalize_prefix(prefix);
  if (!p) return p.error();
  if (cfg.writer.empty()) cfg.writer = "floe";
  if (cfg.writer.size() > max_writer_bytes) return error(errc::invalid_argument, "ledger writer: longer than 1024 bytes");
  return std::unique_ptr<ledger>(new ledger(c, std::string(bucket), std::move(*p), std::move(cfg)));
}

FLOE_DECL ledger::ledger(s3::client& c, std::string bucket, std::string prefix, ledger_config cfg)
    : c_(c), bucket_(std::move(bucket)), prefix_(std::move(prefix)), cfg_(std::move(cfg)) {
  std::random_device rd;
  rng_state_ = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
}

FLOE_DECL double ledger::random01() {
  if (cfg_.random) return cfg_.random();
  // splitmix64
  std::uint64_t z = (rng_state_ += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * (1.0 / 9007199254740992.0);
}

FLOE_DECL std::string ledger::new_write_id_base() {
  static constexpr char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::string id;
  for (int i = 0; i < 20; ++i) id += alphabet[static_cast<std::size_t>(random01() * 36) % 36];
  return id;
}

FLOE_DECL std::string ledger::now_iso() const {
  auto const t = cfg_.wall_clock ? cfg_.wall_clock() : std::chrono::system_clock::now();
  return iso8601_utc(std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count());
}

FLOE_DECL error ledger::failure(error e, std::string const& op) const {
  if (e.diag.operation.empty()) e.diag.operation = op;
  e.diag.message = "ledger " + location() + ": " + e.diag.message;
  return e;
}

FLOE_DECL boost::asio::awaitable<result<std::optional<std::string>>> ledger::get_optional(std::string const& key) {
  auto r = co_await c_.async_get_object(bucket_, key, boost::asio::use_awaitable);
  if (!r) {
    if (r.error().code == errc::not_found && r.error().diag.code != "NoSuchBucket") co_return std::optional<std::string>();
    co_return r.error();
  }
  co_return std::optional<std::string>(std::move(r->body));
}

FLOE_DECL boost::asio::awaitable<result<bool>> ledger::exists(std::string const& key) {
  auto r = co_await c_.async_head_object(bucket_, key, boost::asio::use_awaitable);
  if (!r) {
    if (r.error().code == errc::not_found) co_return false;
    co_return r.error();
  }
  co_return true;
}

FLOE_DECL boost::asio::awaitable<result<void>> ledger::read_checkpoint(std::uint64_t n, checkpoint_reader& reader) {
  result<void> parsed;
  bool bad = false;
  http::body_sink::write_fn write = [&](std::string_view piece, boost::system::error_code& ec) {
    if (!bad) {
      parsed = reader.feed(piece);
      bad = !parsed;
    }
    // Stops the transfer for good (an aborted one is not resumed).
    if (bad) ec = boost::asio::error::operation_aborted;
  };
  std::string const key = checkpoint_key(prefix_, n);
  auto g = co_await c_.async_get_object_to(bucket_, key, write, boost::asio::use_awaitable);
  if (bad) co_return parsed.error();
  if (!g) co_return g.error();
  co_return reader.finish();
}

FLOE_DECL boost::asio::awaitable<result<void>> ledger::catch_up(refresh_result& out) {
  for (;;) {
    std::uint64_t const n = state_.next();
    std::string const key = commit_key(prefix_, n);
    auto body = co_await get_optional(key);
    if (!body) co_return body.error();
    if (!*body) break;
    auto c = decode_commit(**body);
    if (!c) co_return error(errc::malformed_reply, "commit " + std::to_string(n) + " (" + key + ") is not a floe ledger commit: " + c.error().diag.message);
    if (c->number != n)
      co_return error(errc::malformed_reply, "commit " + std::to_string(n) + " (" + key + ") says it is commit " + std::to_string(c->number));
    state_.apply(*c);
    ++out.commits_read;
  }
  out.head = head();
  out.entries = size();
  co_return result<void>();
}

// From nothing: the hint, then probes forward at checkpoint numbers (a
// checkpoint there, or at least a commit, says to look further), then the
// newest checkpoint found, then the commits after it.
FLOE_DECL boost::asio::awaitable<result<void>> ledger::load(refresh_result& out) {
  state_.reset();
  out.loaded = true;
  auto hint = co_await get_optional(hint_key(prefix_));
  if (!hint) co_return hint.error();
  if (*hint) out.hint = decode_hint(**hint);

  std::optional<std::uint64_t> best;
  if (out.hint && *out.hint > 0) {
    auto e = co_await exists(checkpoint_key(prefix_, *out.hint));
    ++out.probes;
    if (!e) co_return e.error();
    if (*e) best = *out.hint;
  }
  if (std::uint64_t const k = cfg_.checkpoints.interval; k > 0) {
    for (std::uint64_t m = (out.hint.value_or(0) / k + 1) * k;; m += k) {
      auto cp = co_await exists(checkpoint_key(prefix_, m));
      ++out.probes;
      if (!cp) co_return cp.error();
      if (*cp) {
        best = m;
        continue;
      }
      auto cm = co_await exists(commit_key(prefix_, m));  // no checkpoint here: is the log this long?
      ++out.probes;
      if (!cm) co_return cm.error();
      if (!*cm) break;
    }
  }

  if (best) {
    state_.reset_to_checkpoint(*best);
    entry_set& set = state_.mutable_entries();
    checkpoint_reader reader(*best, [&set](entry_view const& e) { return set.insert(e) != entry_set::npos; });
    auto r = co_await read_checkpoint(*best, reader);
    if (r) {
      out.checkpoint = best;
    } else if (r.error().code == errc::malformed_reply || r.error().code == errc::not_found) {
      // Not fatal: the log itself is the truth. Start from commit 0.
      out.checkpoint_rejected = r.error().diag.message.empty() ? r.error().what() : r.error().diag.message;
      state_.reset();
    } else {
      state_.reset();
      co_return r.error();
    }
  }
  auto c = co_await catch_up(out);
  if (!c) {
    state_.reset();
    co_return c.error();
  }
  co_return result<void>();
}

FLOE_DECL boost::asio::awaitable<result<refresh_result>> ledger::run_refresh() {
  refresh_result out;
  // (Not `loaded() ? co_await a : co_await b`: GCC 12 destroys the wrong
  // temporary of a conditional with co_await in both arms.)
  result<void> r;
  if (loaded())
    r = co_await catch_up(out);
  else
    r = co_await load(out);
  if (!r) co_return failure(r.error(), "LedgerRefresh");
  if (!loaded())
    co_return failure(error(errc::not_found, "no ledger here (commit 0 is missing; init creates it)"), "LedgerRefresh");
  co_return out;
}

FLOE_DECL boost::asio::awaitable<result<init_result>> ledger::run_init() {
  init_result out;
  result<void> r;
  if (loaded())
    r = co_await catch_up(out.state);
  else
    r = co_await load(out.state);
  if (!r) co_return failure(r.error(), "LedgerInit");
  if (!loaded()) {
    commit_machine m(state_, {}, cfg_.writer, new_write_id_base(), now_iso(), cfg_.commit, steady_now(), true);
    auto g = co_await run_machine(m);
    if (!g) co_return failure(g.error(), "LedgerInit");
    out.created = g->created;
    auto more = co_await catch_up(out.state);  // others may have committed since
    if (!more) co_return failure(more.error(), "LedgerInit");
  }
  co_return out;
}

FLOE_DECL boost::asio::awaitable<result<std::optional<commit>>> ledger::run_read_commit(std::uint64_t n) {
  std::string const key = commit_key(prefix_, n);
  auto body = co_await get_optional(key);
  if (!body) co_return failure(body.error(), "LedgerReadCommit");
  if (!*body) co_return std::optional<commit>();
  auto c = decode_commit(**body);
  if (!c)
    co_return failure(error(errc::malformed_reply, "commit " + std::to_string(n) + " (" + key + ") is not a floe ledger commit: " +
                                                       c.error().diag.message),
                      "LedgerReadCommit");
  co_return std::optional<commit>(std::move(*c));
}

FLOE_DECL boost::asio::awaitable<result<std::optional<commit>>> history_cursor::step() {
  auto r = co_await l_.async_read_commit(next_, boost::asio::use_awaitable);
  if (r && *r) ++next_;
  co_return r;
}

}  // namespace floe::ledger
