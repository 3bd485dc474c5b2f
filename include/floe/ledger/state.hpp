#pragma once
// What a ledger knows in memory: the registered entries and how far into
// the log it has read, plus the rule for when a checkpoint is written. Pure.

#include <floe/ledger/entry.hpp>
#include <floe/ledger/format.hpp>

#include <cstddef>
#include <cstdint>

namespace floe::ledger {

class ledger_state {
 public:
  entry_set const& entries() const noexcept { return entries_; }
  /// The first commit number not applied yet (0: not even the genesis).
  std::uint64_t next() const noexcept { return next_; }

  /// Applies commit c, which must be number next(): its entries join the
  /// set. Returns how many of them were there already, which a well-formed
  /// log never has (verify reports it; here they are kept once).
  std::size_t apply(commit const& c) {
    std::size_t dup = 0;
    for (auto const& e : c.entries)
      if (entries_.insert(e) == entry_set::npos) ++dup;
    next_ = c.number + 1;
    return dup;
  }

  /// Starts over from a checkpoint covering commits 0..n: the caller fills
  /// entries() through mutable_entries(). reset(0) with nothing: empty.
  void reset_to_checkpoint(std::uint64_t n) {
    entries_.clear();
    next_ = n + 1;
  }
  void reset() {
    entries_.clear();
    next_ = 0;
  }
  entry_set& mutable_entries() noexcept { return entries_; }

 private:
  entry_set entries_;
  std::uint64_t next_ = 0;
};

/// When checkpoints are written: only at commit numbers that are multiples
/// of `interval` (so a reader can probe for them), and of a longer interval
/// as the ledger grows: it doubles each time the entry count doubles past
/// `entries_unit`. Writing one costs the whole ledger, so this keeps the
/// cost per commit about the same at any size (between entries_unit /
/// interval and twice that many entries written per commit, amortised),
/// while a new reader reads at most one interval of commits after the
/// checkpoint it starts from (100 commits up to 40,000 entries, 400 at
/// 100,000, about entries / 100 beyond).
struct checkpoint_policy {
  std::uint64_t interval = 100;        // 0: never write checkpoints
  std::uint64_t entries_unit = 20000;
};

inline bool checkpoint_due(std::uint64_t n, std::size_t entries, checkpoint_policy const& p) noexcept {
  if (p.interval == 0 || n == 0) return false;
  std::uint64_t k = p.interval;
  std::uint64_t const unit = p.entries_unit == 0 ? 1 : p.entries_unit;
  for (std::uint64_t size = entries; size >= 2 * unit && k < (1ull << 40); size /= 2) k *= 2;
  return n % k == 0;
}

}  // namespace floe::ledger
