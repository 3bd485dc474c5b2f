#pragma once
// What a ledger knows in memory: the records applied and how far into the
// log it has read, the rules that decide what a registration or a removal
// does, and the rule for when a checkpoint is written. Pure.
//
// The rules (docs/ledger.md, "Removals and sequencers"), per record e of
// bucket/key, against the records of that key whose version id is
// comparable (equal, or either one empty):
//   - the newest sequencer among them decides: an e with a sequencer that
//     is not newer than it changes nothing (stale); records without a
//     sequencer (ledger add, reconcile, version 1 commits) do not count;
//   - a registration whose identity is live already changes nothing
//     (already), whatever its sequencer;
//   - otherwise a registration is added (live), and a removal undoes every
//     comparable live registration of the key and is kept (its sequencer
//     guards the key against older events).
#include <floe/ledger/entry.hpp>
#include <floe/ledger/format.hpp>

#include <floe/ledger/sequencer.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace floe::ledger {

enum class verdict {
  add,      // changes the ledger
  already,  // a registration live already
  stale,    // older than the newest sequencer the ledger holds for the key
};

namespace detail {

inline bool comparable_versions(std::string_view a, std::string_view b) noexcept {
  return a.empty() || b.empty() || a == b;
}

// The newest sequencer among s's records of e's key comparable with e.
inline std::optional<std::string_view> newest_sequencer(entry_set const& s, entry_view const& e) {
  std::optional<std::string_view> best;
  for (auto o = s.newest_of_key(e.bucket, e.key); o != entry_set::npos; o = s.previous_of_key(o)) {
    auto const r = s.at(o);
    if (r.sequencer.empty() || !comparable_versions(r.version_id, e.version_id)) continue;
    if (!best || compare_sequencers(r.sequencer, *best) > 0) best = r.sequencer;
  }
  return best;
}

// Whether s holds a removal of e's key comparable with e.
inline bool has_removal(entry_set const& s, entry_view const& e) {
  for (auto o = s.newest_of_key(e.bucket, e.key); o != entry_set::npos; o = s.previous_of_key(o)) {
    auto const r = s.at(o);
    if (r.removal && comparable_versions(r.version_id, e.version_id)) return true;
  }
  return false;
}

}  // namespace detail

/// What e would do to `base` with `overlay` applied after it (the batch
/// being prepared: records judged `add` in order; null: none).
inline verdict judge(entry_set const& base, entry_set const* overlay, entry_view const& e) {
  if (!e.removal) {
    bool const live = (base.contains(e) && !(overlay && detail::has_removal(*overlay, e))) ||
                      (overlay && overlay->contains(e));
    if (live) return verdict::already;
  }
  if (e.sequencer.empty()) return verdict::add;
  auto newest = detail::newest_sequencer(base, e);
  if (overlay) {
    auto const o = detail::newest_sequencer(*overlay, e);
    if (o && (!newest || compare_sequencers(*o, *newest) > 0)) newest = o;
  }
  return newest && compare_sequencers(e.sequencer, *newest) <= 0 ? verdict::stale : verdict::add;
}

/// Applies e to `s` by the rules; returns what it did.
inline verdict apply_record(entry_set& s, entry_view const& e) {
  verdict const v = judge(s, nullptr, e);
  if (v != verdict::add) return v;
  if (e.removal) {
    for (auto o = s.newest_of_key(e.bucket, e.key); o != entry_set::npos; o = s.previous_of_key(o)) {
      auto const r = s.at(o);
      if (!r.removal && !r.removed && detail::comparable_versions(r.version_id, e.version_id)) s.mark_removed(o);
    }
  }
  s.insert(e);
  return v;
}

class ledger_state {
 public:
  entry_set const& entries() const noexcept { return entries_; }
  /// The first commit number not applied yet (0: not even the genesis).
  std::uint64_t next() const noexcept { return next_; }

  /// Applies commit c, which must be number next(): its records, in
  /// order, by the rules above. Returns how many of them changed nothing
  /// (live already, or stale), which a log floe wrote never has (verify
  /// reports a live entry twice; here each is kept once).
  std::size_t apply(commit const& c) {
    std::size_t idle = 0;
    for (auto const& e : c.entries)
      if (apply_record(entries_, view_of(e)) != verdict::add) ++idle;
    next_ = c.number + 1;
    return idle;
  }

  /// Starts over from a checkpoint covering commits 0..n: the caller fills
  /// entries() through mutable_entries() (records as the checkpoint holds
  /// them: insert, not the rules). reset(0) with nothing: empty.
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
