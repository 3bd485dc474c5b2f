#pragma once
// The sans-I/O core of a ledger commit: which commit number to write, what
// every outcome of that write means, when to read back and when to give up.
// Pure: the store's replies, the time and the randomness are arguments.
//
// A commit n is the object _log/<n>.json, created with If-None-Match: *, so
// each number has exactly one winner and is never written again. The
// machine writes the batch (minus entries already registered) at the
// ledger's next number, and resolves the write's outcome exactly by reading
// the number back and comparing the write id in the commit found with its
// own:
//
//   written (2xx)              ours: done
//   precondition_failed (412)  the number is taken: read it
//   conflict (409, any code)   back off, then read it
//   unknown_outcome (5xx, lost reply)
//                              read it
//   read: our write id         ours: done (the reply was lost, or a delayed
//                              earlier attempt won the number)
//   read: another write id     another writer's: its entries join the
//                              ledger, are dropped from the batch, and the
//                              rest goes to the next number (nothing left:
//                              done, nothing new)
//   read: absent (404)         nothing landed (yet): write the same number
//                              again with the same body and write id, so a
//                              delayed earlier attempt and the new one are
//                              the same commit whichever lands
//   read: failed               back off, read again
//
// Other write errors (denied, unsupported, ...) end the commit with that
// error, or with errc::unknown_outcome when an earlier attempt at the same
// number may still land. A commit found at the number that does not parse,
// or that carries our write id with other bytes, ends it with
// errc::malformed_reply: the ledger cannot go past it (verify names it).
// Bounds: write attempts, reads of one number, and a deadline; giving up
// while an attempt may have landed is errc::unknown_outcome, never "not
// committed". A commit never holds an entry an earlier commit holds: the
// machine writes number n only once it knows every commit before n.
//
// Genesis mode writes commit 0 with no entries (ledger::async_init): any
// commit 0 found there ends it, created or not.

#include <floe/config.hpp>
#include <floe/ledger/entry.hpp>
#include <floe/ledger/format.hpp>
#include <floe/ledger/state.hpp>
#include <floe/result.hpp>
#include <floe/s3/conditional.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace floe::ledger {

struct commit_config {
  /// Write attempts per commit, over all numbers (the first included).
  unsigned max_writes = 1000;
  /// Failed reads of one number before giving up on it.
  unsigned max_failed_reads = 20;
  /// Per commit, from its start (zero: none).
  std::chrono::milliseconds deadline{120000};
  /// Back-off after a 409 or a failed read: random(0,1) x min(base x 2^n, max).
  std::chrono::milliseconds backoff_base{10};
  std::chrono::milliseconds backoff_max{2000};
};

struct commit_result {
  bool wrote = false;          // false: nothing new (every entry was registered already)
  bool created = false;        // genesis mode: commit 0 is ours
  std::uint64_t number = 0;    // the commit holding `committed` (valid when wrote)
  std::string write_id;        // of that commit
  std::vector<entry> committed;  // registered by this commit, in the batch's order
  std::vector<entry> already;    // registered before, by earlier commits (or given twice)
  std::vector<entry> stale;      // older than the newest sequencer the ledger holds for their key (state.hpp)
  unsigned writes = 0;         // write attempts
  unsigned reads = 0;          // read-backs
  unsigned lost_races = 0;     // numbers found taken by another writer
  unsigned conflicts = 0;      // 409s
  unsigned unknown = 0;        // 5xx and lost replies
  bool confirmed_by_read = false;  // ours, learnt by reading it back
  // Filled by the ledger after the commit (never a failure of the commit):
  bool checkpoint_written = false;
  std::string checkpoint_error;  // why a due checkpoint or hint was not written
};

class commit_machine {
 public:
  enum class step { write, read, sleep, done };
  using time_point = std::chrono::steady_clock::time_point;

  /// `state` (which must have the genesis: next() > 0, or be empty in
  /// genesis mode) is updated as commits are learnt. `batch` must hold
  /// valid entries (validate_entry). `write_id_base` must be unique to this
  /// commit call (the write id of number n is "<base>.<n>"). `time` is
  /// written into the commit. `cfg` must outlive the machine.
  FLOE_DECL commit_machine(ledger_state& state, std::vector<entry> batch, std::string writer, std::string write_id_base,
                           std::string time, commit_config const& cfg, time_point start, bool genesis = false);

  FLOE_DECL step start();
  FLOE_DECL step on_write(result<s3::write_outcome> r, time_point now, double random01);
  /// A read of number(): the body, or nullopt when absent (404), or an error.
  FLOE_DECL step on_read(result<std::optional<std::string>> r, time_point now, double random01);
  FLOE_DECL step on_slept(time_point now);

  std::uint64_t number() const noexcept { return number_; }
  /// The body to write at number() (the same bytes on every attempt there).
  std::string const& body() const noexcept { return body_; }
  std::chrono::nanoseconds sleep() const noexcept { return sleep_; }
  /// Valid once done.
  result<commit_result>& outcome() noexcept { return outcome_; }

 private:
  step prepare();  // drop what the state holds; build the body for number_
  step ours();
  step finish(error e);
  step give_up(boost::system::error_code code, std::string why);
  step back_off(unsigned n, double random01, time_point now);
  bool past_deadline(time_point now) const noexcept;

  ledger_state& state_;
  std::vector<entry> batch_;
  std::string writer_;
  std::string base_;
  std::string time_;
  commit_config const& cfg_;
  time_point start_;
  bool genesis_;
  std::uint64_t number_ = 0;
  std::string write_id_;
  std::string body_;
  bool maybe_landed_ = false;  // an attempt at number_ may have landed
  unsigned failed_reads_ = 0;  // of number_
  std::chrono::nanoseconds sleep_{0};
  commit_result stats_;
  result<commit_result> outcome_{commit_result{}};
};

}  // namespace floe::ledger

#if defined(FLOE_HEADER_ONLY)
#include <floe/ledger/impl/commit_machine.ipp>
#endif
