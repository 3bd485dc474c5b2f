#pragma once
// A ledger: the set of objects registered exactly once, kept on S3 as a log
// of numbered commit objects that only conditional writes create. Design,
// layout and formats: docs/ledger.md.
//
//   auto l = ledger::ledger::open(s3, "lake", "ledgers/raw").value();
//   co_await l->async_init(asio::use_awaitable);          // create if absent, load
//   std::vector<ledger::entry> batch = {{"lake", "raw/a.parquet", etag, "", size}};
//   auto r = co_await l->async_commit(batch, asio::use_awaitable);
//   // r->committed: registered by this commit; r->already: registered before
//
// In memory a ledger keeps the set of registered entries (compact: see
// entry.hpp) and the number of the next commit. Loading starts from the
// newest checkpoint (the hint says where to look; it is probed forward from
// there, never taken from a listing) and reads only the commits after it;
// async_refresh then reads only commits not seen yet, and a commit costs
// what its batch costs, whatever the ledger's size.
//
// Every async_* function takes a completion token (default asio::deferred)
// and completes with floe::result<T>. Cancellation: terminal, through the
// token's slot (a commit write in flight may then land: refresh to learn
// it). Lifetimes: the client and the ledger must outlive every operation.
// Threading: the ledger runs on its client's executor; use it from one
// thread or a strand. init, refresh and commit change the ledger and run one
// at a time (a second one meanwhile fails with errc::invalid_argument);
// async_verify and async_read_commit read the store only and may run
// alongside. Several ledger objects (in one process or many) may commit to
// one ledger at once: that is what the design is for.

#include <floe/config.hpp>
#include <floe/ledger/commit_machine.hpp>
#include <floe/ledger/entry.hpp>
#include <floe/ledger/format.hpp>
#include <floe/ledger/state.hpp>
#include <floe/ledger/verify.hpp>
#include <floe/result.hpp>
#include <floe/s3/client.hpp>

#include <boost/asio/async_result.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/deferred.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace floe::ledger {

struct ledger_config {
  /// Written into every commit as "writer" (free text: host, process,
  /// version). Empty: "floe".
  std::string writer;
  commit_config commit;
  /// Readers probe for checkpoints at multiples of checkpoints.interval:
  /// every process on one ledger should use the same value.
  checkpoint_policy checkpoints;
  /// Randomness in [0, 1) for write ids and back-off; null: a generator
  /// seeded from std::random_device.
  std::function<double()> random;
  /// The time written into commits; null: system_clock::now.
  std::function<std::chrono::system_clock::time_point()> wall_clock;
  /// The clock deadlines are measured on; null: steady_clock::now.
  std::function<std::chrono::steady_clock::time_point()> clock;
};

struct commit_params {
  /// Overrides ledger_config::writer for this commit.
  std::string writer;
};

struct refresh_result {
  std::uint64_t head = 0;                   // the newest commit known
  std::size_t entries = 0;                  // registered entries known
  unsigned commits_read = 0;                // by this call
  bool loaded = false;                      // this call loaded the ledger from nothing
  std::optional<std::uint64_t> checkpoint;  // ... starting from this checkpoint
  std::optional<std::uint64_t> hint;        // what the hint said
  unsigned probes = 0;                      // HEADs made looking for newer checkpoints
  std::string checkpoint_rejected;          // why a checkpoint found was not used (then: from commit 0)
};

struct init_result {
  bool created = false;  // this call created the genesis commit
  refresh_result state;
};

class ledger {
 public:
  /// A ledger at s3://bucket/prefix (nothing is read yet). Errors:
  /// invalid_argument (an empty bucket, a bad prefix).
  FLOE_DECL static result<std::unique_ptr<ledger>> open(s3::client& c, std::string_view bucket, std::string_view prefix,
                                                       ledger_config cfg = {});
  ledger(ledger const&) = delete;
  ledger& operator=(ledger const&) = delete;

  std::string const& bucket() const noexcept { return bucket_; }
  /// Normalised: "" or ending in '/'.
  std::string const& prefix() const noexcept { return prefix_; }
  /// "s3://bucket/prefix".
  std::string location() const { return "s3://" + bucket_ + "/" + prefix_; }
  s3::client& client() noexcept { return c_; }
  ledger_config const& config() const noexcept { return cfg_; }

  /// Loaded (by init or refresh) at least once.
  bool loaded() const noexcept { return state_.next() > 0; }
  /// The newest commit known (valid when loaded).
  std::uint64_t head() const noexcept { return state_.next() == 0 ? 0 : state_.next() - 1; }
  /// Live registrations (removed ones and removals not counted).
  std::size_t size() const noexcept { return state_.entries().live(); }
  /// Registered and live, as far as this ledger knows (refresh to learn more).
  bool contains(entry const& e) const noexcept { return state_.entries().contains(e); }
  entry_set const& entries() const noexcept { return state_.entries(); }

  /// Creates the ledger if there is none (commit 0, create-only: any number
  /// of processes may race to do it) and loads it. Completes with
  /// result<init_result>. Errors: the client's (denied, not_found for a
  /// missing bucket, ...); malformed_reply for a commit or genesis that does
  /// not parse.
  template <class Token = boost::asio::deferred_t>
  auto async_init(Token&& token = {}) {
    return start<init_result>([this]() { return run_init(); }, std::forward<Token>(token));
  }

  /// Catches up: the first time, loads from the newest checkpoint; then
  /// reads only the commits not seen yet. Completes with
  /// result<refresh_result>. Errors: not_found when there is no ledger
  /// (async_init creates one); malformed_reply for a commit that does not
  /// parse (the ledger cannot be read past it); the client's.
  template <class Token = boost::asio::deferred_t>
  auto async_refresh(Token&& token = {}) {
    return start<refresh_result>([this]() { return run_refresh(); }, std::forward<Token>(token));
  }

  /// Registers the entries not registered yet, in one new commit
  /// (commit_machine.hpp says how every outcome of its write is resolved).
  /// Loads the ledger first if needed. Completes with
  /// result<commit_result>: `committed` (by this commit) and `already`
  /// (registered before); when nothing was new, no commit is written. A
  /// checkpoint due at the new commit is written afterwards; failing to
  /// write it is reported in the result, never an error. Errors:
  /// invalid_argument (an entry validate_entry refuses, more than 10,000
  /// entries); unknown_outcome (gave up while an attempt may still land:
  /// refresh to learn whether it did); timeout, attempts_exhausted
  /// (nothing committed); malformed_reply (a commit in the way does not
  /// parse); the client's.
  template <class Token = boost::asio::deferred_t>
  auto async_commit(std::vector<entry> entries, commit_params p, Token&& token = {}) {
    return start<commit_result>(
        [this, e = std::move(entries), p = std::move(p)]() mutable { return run_commit(e, p); },
        std::forward<Token>(token));
  }
  template <class Token = boost::asio::deferred_t>
    requires(!std::is_convertible_v<Token, commit_params>)
  auto async_commit(std::vector<entry> entries, Token&& token = {}) {
    commit_params p;
    return async_commit(std::move(entries), std::move(p), std::forward<Token>(token));
  }

  /// Checks the whole ledger from the store (verify.hpp: what is checked)
  /// without changing this object. Completes with result<verify_report>:
  /// its first_defect, if any. Errors: the client's (a failed read is an
  /// error, not a defect).
  template <class Token = boost::asio::deferred_t>
  auto async_verify(Token&& token = {}) {
    return spawn_read<verify_report>([this]() { return run_verify(); }, std::forward<Token>(token));
  }

  /// Commit n as stored, or nullopt when it does not exist. Errors:
  /// malformed_reply (it does not parse); the client's.
  template <class Token = boost::asio::deferred_t>
  auto async_read_commit(std::uint64_t n, Token&& token = {}) {
    return spawn_read<std::optional<commit>>([this, n]() { return run_read_commit(n); }, std::forward<Token>(token));
  }

  /// Maximum entries in one commit.
  static constexpr std::size_t max_batch = 10000;

 private:
  FLOE_DECL ledger(s3::client& c, std::string bucket, std::string prefix, ledger_config cfg);

  template <class T, class Make, class Token>
  auto start(Make&& make, Token&& token) {
    return spawn_read<T>(
        [this, m = std::forward<Make>(make)]() mutable { return guarded<T>(std::move(m)); },
        std::forward<Token>(token));
  }

  template <class T, class Make, class Token>
  auto spawn_read(Make&& make, Token&& token) {
    return boost::asio::async_initiate<Token, void(result<T>)>(
        [this](auto handler, auto mk) {
          // The function object (and what it captured) lives in the spawned
          // coroutine's frame until the operation completes.
          http::detail::spawn<void(result<T>)>(c_.get_executor(), std::move(mk), std::move(handler));
        },
        token, std::forward<Make>(make));
  }

  template <class T, class Make>
  boost::asio::awaitable<result<T>> guarded(Make make) {
    if (busy_) {
      error e(errc::invalid_argument, "another init, refresh or commit is running on this ledger object");
      e.diag.resource = location();
      co_return e;
    }
    busy_ = true;
    struct reset {
      bool& b;
      ~reset() { b = false; }
    } r{busy_};
    co_return co_await make();
  }

  // Runners (impl/ledger.ipp, impl/ledger_commit.ipp, impl/ledger_verify.ipp).
  FLOE_DECL boost::asio::awaitable<result<init_result>> run_init();
  FLOE_DECL boost::asio::awaitable<result<refresh_result>> run_refresh();
  FLOE_DECL boost::asio::awaitable<result<commit_result>> run_commit(std::vector<entry>& entries, commit_params const& p);
  FLOE_DECL boost::asio::awaitable<result<verify_report>> run_verify();
  FLOE_DECL boost::asio::awaitable<result<std::optional<commit>>> run_read_commit(std::uint64_t n);

  FLOE_DECL boost::asio::awaitable<result<void>> load(refresh_result& out);
  FLOE_DECL boost::asio::awaitable<result<void>> catch_up(refresh_result& out);
  FLOE_DECL boost::asio::awaitable<result<std::optional<std::string>>> get_optional(std::string const& key);
  FLOE_DECL boost::asio::awaitable<result<bool>> exists(std::string const& key);
  FLOE_DECL boost::asio::awaitable<result<void>> read_checkpoint(std::uint64_t n, checkpoint_reader& reader);
  FLOE_DECL boost::asio::awaitable<result<commit_result>> run_machine(commit_machine& m);
  FLOE_DECL boost::asio::awaitable<void> write_checkpoint(commit_result& r);
  FLOE_DECL error failure(error e, std::string const& op) const;
  FLOE_DECL double random01();
  FLOE_DECL std::string new_write_id_base();
  FLOE_DECL std::string now_iso() const;
  std::chrono::steady_clock::time_point steady_now() const {
    return cfg_.clock ? cfg_.clock() : std::chrono::steady_clock::now();
  }

  s3::client& c_;
  std::string bucket_;
  std::string prefix_;
  ledger_config cfg_;
  ledger_state state_;
  bool busy_ = false;
  std::uint64_t rng_state_ = 0;
};

/// Reads a ledger's commits in order (what `floe ledger log` shows).
class history_cursor {
 public:
  explicit history_cursor(ledger& l, std::uint64_t from = 0) noexcept : l_(l), next_(from) {}
  /// The next commit, or nullopt at the end of the log (call again later
  /// for commits made since). Errors as ledger::async_read_commit.
  template <class Token = boost::asio::deferred_t>
  auto async_next(Token&& token = {}) {
    return boost::asio::async_initiate<Token, void(result<std::optional<commit>>)>(
        [this](auto handler) {
          http::detail::spawn<void(result<std::optional<commit>>)>(
              l_.client().get_executor(), [this]() { return step(); }, std::move(handler));
        },
        token);
  }
  std::uint64_t next() const noexcept { return next_; }

 private:
  FLOE_DECL boost::asio::awaitable<result<std::optional<commit>>> step();
  ledger& l_;
  std::uint64_t next_;
};

}  // namespace floe::ledger

#if defined(FLOE_HEADER_ONLY)
#include <floe/ledger/impl/ledger.ipp>
#include <floe/ledger/impl/ledger_commit.ipp>
#include <floe/ledger/impl/ledger_verify.ipp>
#endif
