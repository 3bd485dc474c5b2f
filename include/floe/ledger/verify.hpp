#pragma once
// Checking a whole ledger: the pure part of ledger::async_verify.
//
// The runner lists the log and checkpoint folders (to find objects a reader
// would never see: commits past a gap, stray names), then reads commits 0,
// 1, 2, ... until one is absent and feeds them here in order, and checks
// each listed checkpoint right after the commit it covers. The first defect
// found stops the check:
//   - commit 0 (the genesis) missing: there is no ledger;
//   - a commit that does not parse, or names another number;
//   - a live entry registered again (by two commits, or twice in one)
//     with no removal of it between: "no live entry twice";
//   - a checkpoint that does not parse, or disagrees with the replay of
//     commits 0..n (a live entry or a removal missing, one too many, one
//     twice);
//   - a commit or checkpoint whose number is past the end of the log (a gap
//     before it), or an object in the log folders with another name.
// The hint is reported, never a defect: it is advice and may lag.

#include <floe/config.hpp>
#include <floe/ledger/entry.hpp>
#include <floe/ledger/format.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace floe::ledger {

enum class defect_kind {
  no_genesis,
  commit_malformed,
  commit_misnumbered,
  entry_twice,
  checkpoint_malformed,
  checkpoint_disagrees,
  commit_after_gap,
  checkpoint_after_end,
  stray_object,
};

FLOE_DECL std::string_view to_string(defect_kind k) noexcept;

struct defect {
  defect_kind kind = defect_kind::no_genesis;
  std::string object;   // the key of the object at fault
  std::string message;  // one line, naming the object and what is wrong
};

struct verify_report {
  std::optional<defect> first_defect;
  std::uint64_t commits = 0;             // commits read (0..commits-1)
  std::size_t entries = 0;               // live entries they leave
  std::size_t checkpoints_checked = 0;
  std::optional<std::uint64_t> hint;     // what the hint names (none, or unreadable: nullopt)
  bool ok() const noexcept { return !first_defect.has_value(); }
};

class log_verifier {
 public:
  /// `prefix` as normalize_prefix returns it.
  FLOE_DECL explicit log_verifier(std::string prefix);

  /// The keys a listing of log_folder and checkpoint_folder found.
  FLOE_DECL void listed(std::vector<std::string> const& log_keys, std::vector<std::string> const& checkpoint_keys);
  /// The checkpoints listed with well-formed names, ascending.
  std::vector<std::uint64_t> const& checkpoints() const noexcept { return checkpoints_; }

  /// Commit n's body; n = 0, 1, ... in order. False once a defect was found.
  FLOE_DECL bool add_commit(std::uint64_t n, std::string_view body);
  /// Commit n is absent: the log ends before it.
  FLOE_DECL void end_of_log(std::uint64_t n);

  /// Checks checkpoint n (call after add_commit(n)): feed its bytes to
  /// reader(), then call end_checkpoint with what the reader's feed/finish
  /// returned (the first failure, or success).
  FLOE_DECL checkpoint_reader& begin_checkpoint(std::uint64_t n);
  FLOE_DECL bool end_checkpoint(result<void> const& read);

  void set_hint(std::optional<std::uint64_t> h) noexcept { report_.hint = h; }
  bool failed() const noexcept { return report_.first_defect.has_value(); }
  /// The report (call once the log and listing were fed).
  FLOE_DECL verify_report finish();

 private:
  bool fail(defect_kind k, std::string object, std::string message);

  std::string prefix_;
  entry_set replay_;
  std::vector<std::uint64_t> commit_of_;  // ordinal -> the commit that added the record
  std::vector<std::uint64_t> checkpoints_;
  std::vector<std::uint64_t> listed_commits_;
  std::vector<std::string> strays_;
  std::optional<std::uint64_t> end_;  // the first absent number
  // The checkpoint being checked.
  std::uint64_t cp_number_ = 0;
  std::vector<bool> cp_seen_;
  std::string cp_extra_;  // an entry it holds that the replay does not
  std::optional<checkpoint_reader> cp_reader_;
  verify_report report_;
};

}  // namespace floe::ledger

#if defined(FLOE_HEADER_ONLY)
#include <floe/ledger/impl/verify.ipp>
#endif
