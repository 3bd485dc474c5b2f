#pragma once
// Exact compare-and-swap on one S3 object: updater::async_update(bucket,
// key, fn).
//
//   auto u = s3::updater(client);                      // random writer id
//   auto r = co_await u.async_update("b", "counter.json",
//       [](std::optional<std::string_view> old) -> std::optional<std::string> {
//         return std::to_string(old ? std::stoi(std::string(*old)) + 1 : 1);
//       });
//   // r->attempts, r->etag; or r.error(): unknown_outcome, attempts_exhausted, timeout, ...
//
// How it works. Read the object (GET with its ETag; absent means "create
// with If-None-Match: *"), let `fn` map the old bytes (nullopt: absent) to
// new bytes or to "no change" (nullopt, or bytes equal to the old), and write
// them with If-Match on the ETag read (s3/conditional.hpp). On
// precondition_failed re-read and go again; on conflict back off with full
// jitter, re-read and go again; a bound on write attempts and a deadline.
//
// Lost and ambiguous replies. Every updater has a writer id and a sequence
// number that grows with each write attempt. Each write's user metadata
// (x-amz-meta-floe-hw) carries a high-water map, writer id -> highest
// sequence number applied, copied from the version it replaces plus the
// writer's own entry: so it has one entry per writer (not per write), at
// most update_config::max_writers of them and at most 1 KiB, well inside
// S3's 2 KB metadata limit; the least recently written entry is evicted
// first, and the map then records that it was trimmed. After an
// unknown_outcome (and on every re-read) the writer looks at the map: an
// entry for it at or above the first sequence number of this update means
// one of this update's writes landed - however many others wrote on top -
// and the update is done. The write is known NOT to have landed when the map
// is floe's and has an entry for this writer below that number, or has never
// been trimmed and has no entry for it, or when the object still has the
// ETag the write was based on. In every other case (the entry was evicted, a
// writer outside floe replaced the object, the re-read failed or was denied)
// the result is errc::unknown_outcome: never a guess.
//
// LIMITATION - ETag ABA. An ETag hashes the body only. If a key goes back
// to an earlier body (x -> z -> x), a delayed If-Match write based on the
// first x can still succeed and silently undo the writes in between, and a
// stale reading of "the object still has the ETag my write was based on" can
// be wrong. async_update cannot prevent that for bodies it does not own: it
// is exact when a key's bodies never repeat. (The ledger format puts a nonce
// in every body so that its ETags never do.) Deleting the key, or writing it
// outside floe with a copied floe-hw value, is outside the model too.
//
// One update at a time per updater (a second concurrent call fails with
// errc::invalid_argument): the high-water logic needs each writer's
// sequence numbers to be its own. Use one updater (writer id) per concurrent
// committer. The updater and its client run on one executor (a strand).
//
// The sans-I/O core is update_machine: a unit test drives it with a fake
// store, without sockets, clock or randomness.

#include <floe/config.hpp>
#include <floe/error.hpp>
#include <floe/result.hpp>
#include <floe/retry/policy.hpp>
#include <floe/s3/client.hpp>
#include <floe/s3/conditional.hpp>

#include <boost/asio/async_result.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/deferred.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace floe::s3 {

/// The user-metadata name of the high-water map (x-amz-meta-floe-hw).
inline constexpr std::string_view high_water_metadata_name = "floe-hw";
/// The most bytes an encoded map may take.
inline constexpr std::size_t high_water_max_bytes = 1024;
/// Writer ids: 1..40 of A-Z a-z 0-9 - _.
inline constexpr std::size_t writer_id_max_size = 40;

FLOE_DECL bool valid_writer_id(std::string_view id) noexcept;

/// writer id -> highest sequence number applied, most recently written first.
struct high_water_map {
  std::vector<std::pair<std::string, std::uint64_t>> entries;
  /// An entry was ever evicted: a missing writer proves nothing.
  bool trimmed = false;

  FLOE_DECL std::optional<std::uint64_t> find(std::string_view writer) const noexcept;
  /// Sets writer's entry to `seq` (kept if higher), moves it to the front,
  /// and evicts from the back (marking the map trimmed) while there are more
  /// than max_entries or the encoding exceeds high_water_max_bytes.
  FLOE_DECL void record(std::string_view writer, std::uint64_t seq, std::size_t max_entries);

  friend bool operator==(high_water_map const&, high_water_map const&) = default;
};

/// "1;c;id=seq,id=seq" ('c' complete, 't' trimmed). Pure.
FLOE_DECL std::string encode_high_water(high_water_map const& m);
/// Strict: errc::malformed_reply for anything encode_high_water would not
/// write (unknown version, bad id, bad or huge number, duplicate, too long).
FLOE_DECL result<high_water_map> decode_high_water(std::string_view text);

struct update_config {
  /// Empty: a random 16-character id. Must be unique among concurrent
  /// writers of the same keys (valid_writer_id).
  std::string writer_id;
  /// Write attempts per update (the first included).
  unsigned max_attempts = 100;
  /// Per update, from its start (zero: none).
  std::chrono::milliseconds deadline{60000};
  /// Back-off after a conflict: random(0,1) x min(base x 2^n, max).
  std::chrono::milliseconds backoff_base{10};
  std::chrono::milliseconds backoff_max{1000};
  /// When the high-water map cannot account for an ambiguous write, read
  /// again this many times (after base x 2^n back-off) before reporting
  /// unknown_outcome: a store may show a new version before its metadata
  /// (moto does, for a moment).
  unsigned undecided_rereads = default_undecided_rereads;
  /// Entries kept in the high-water map (1..64).
  std::size_t max_writers = 32;
  /// Content-Type of the written object (empty: none sent).
  std::string content_type;
  /// Randomness in [0, 1) for the back-off; null: a generator seeded from
  /// std::random_device. Tests set it.
  std::function<double()> random;
  /// The clock deadlines are measured on; null: steady_clock::now.
  std::function<std::chrono::steady_clock::time_point()> clock;
};

struct update_result {
  bool changed = false;        // false: fn said "no change" (nothing written)
  std::string etag;            // of the written version; the current one when unchanged;
                               // empty when the write was confirmed by a re-read
  std::string version_id;
  std::string body;            // the bytes written (or the current bytes when unchanged)
  unsigned attempts = 0;       // write attempts made
  unsigned reads = 0;          // GETs made
  unsigned conflicts = 0;      // 409s met
  unsigned unknown = 0;        // ambiguous replies met
  bool confirmed_by_reread = false;  // the reply was lost; the high-water map showed the write landed
  std::uint64_t sequence = 0;  // the sequence number of the write that landed
};

/// fn(current bytes or nullopt when absent) -> new bytes, or nullopt for no change.
using update_fn = std::function<std::optional<std::string>(std::optional<std::string_view>)>;

/// What a read found.
struct object_state {
  bool exists = false;
  std::string body;
  std::string etag;
  std::string version_id;
  std::vector<std::pair<std::string, std::string>> metadata;  // lower-case names, no prefix
};

/// The sans-I/O core of async_update. The driver calls start(), then does
/// what the returned step says and reports it with on_read / on_write /
/// on_slept, until done. Pure: time and randomness are arguments.
class update_machine {
 public:
  enum class step { read, write, sleep, done };
  using time_point = std::chrono::steady_clock::time_point;

  struct write_request {
    std::string body;
    std::string if_match;   // empty with create_only
    bool create_only = false;
    std::vector<std::pair<std::string, std::string>> metadata;
    std::uint64_t sequence = 0;
  };

  /// `next_sequence` is the writer's counter (kept by the caller across
  /// updates; only ever increased). `fn` must outlive the machine.
  FLOE_DECL update_machine(std::string writer_id, std::uint64_t& next_sequence, update_config const& cfg,
                           update_fn const& fn, time_point start);

  FLOE_DECL step start();
  /// A GET's result: the object, or absent (exists = false), or an error.
  FLOE_DECL step on_read(result<object_state> r, time_point now);
  FLOE_DECL step on_write(result<write_outcome> r, time_point now, double random01);
  FLOE_DECL step on_slept(time_point now);

  write_request const& write() const noexcept { return write_; }
  std::chrono::nanoseconds sleep() const noexcept { return sleep_; }
  /// Valid once done.
  result<update_result>& outcome() noexcept { return outcome_; }

 private:
  struct open_write {  // an ambiguous write not yet ruled out
    bool create_only = false;
    std::string base_etag;
    std::uint64_t sequence = 0;
    std::string body;
  };

  step finish_error(errc code, std::string message, error const* cause = nullptr);
  step give_up(errc why);
  bool past_deadline(time_point now) const noexcept;

  std::string writer_;
  std::uint64_t& next_seq_;
  update_config const& cfg_;
  update_fn const& fn_;
  time_point start_;
  std::uint64_t first_seq_ = 0;  // first sequence number this update may use; 0 before the first read
  unsigned undecided_ = 0;       // re-reads made because the map could not tell
  std::vector<open_write> open_;
  write_request write_;
  std::chrono::nanoseconds sleep_{0};
  update_result stats_;
  result<update_result> outcome_{update_result{}};
  bool done_ = false;
};

/// Runs async_update for one writer over a client.
class updater {
 public:
  /// Errors on use (invalid_argument) when cfg.writer_id is set but not valid.
  FLOE_DECL explicit updater(client& c, update_config cfg = {});

  std::string const& writer_id() const noexcept { return cfg_.writer_id; }
  update_config const& config() const noexcept { return cfg_; }
  client& get_client() noexcept { return c_; }

  /// Compare-and-swap `key` in `bucket` with `fn` (see the top of this
  /// header). Completes with result<update_result>. Errors:
  /// unknown_outcome (a write may have landed and the high-water map cannot
  /// tell), attempts_exhausted, timeout (the deadline passed), unsupported
  /// (the store has no conditional writes), invalid_argument (a bad writer
  /// id, or an update already running on this updater), and the client's
  /// errors for reads and writes; diagnostics.attempt is the number of
  /// write attempts made. Cancellation: terminal, through the token's slot
  /// (a write in flight may then land; the next update on this key sees it
  /// in the map). Lifetimes: the updater and its client must outlive the
  /// operation; `fn` is moved into it and called on the executor.
  template <class Token = boost::asio::deferred_t>
  auto async_update(std::string_view bucket, std::string_view key, update_fn fn, Token&& token = {}) {
    return boost::asio::async_initiate<Token, void(result<update_result>)>(
        [this](auto handler, std::string b, std::string k, update_fn f) {
          http::detail::spawn<void(result<update_result>)>(
              c_.get_executor(),
              [this, b = std::move(b), k = std::move(k), f = std::move(f)]() { return run(b, k, f); },
              std::move(handler));
        },
        token, std::string(bucket), std::string(key), std::move(fn));
  }

 private:
  FLOE_DECL boost::asio::awaitable<result<update_result>> run(std::string const& bucket, std::string const& key,
                                                              update_fn const& fn);
  FLOE_DECL double random01();

  client& c_;
  update_config cfg_;
  bool bad_id_ = false;
  bool busy_ = false;
  std::uint64_t next_seq_ = 1;
  std::uint64_t rng_state_ = 0;
};

}  // namespace floe::s3

#if defined(FLOE_HEADER_ONLY)
#include <floe/s3/impl/update.ipp>
#endif
