#pragma once
#include <floe/ledger/state.hpp>
#include <floe/ledger/verify.hpp>

#include <algorithm>

namespace floe::ledger {

FLOE_DECL std::string_view to_string(defect_kind k) noexcept {
  switch (k) {
    case defect_kind::no_genesis: return "no_genesis";
    case defect_kind::commit_malformed: return "commit_malformed";
    case defect_kind::commit_misnumbered: return "commit_misnumbered";
    case defect_kind::entry_twice: return "entry_twice";
    case defect_kind::checkpoint_malformed: return "checkpoint_malformed";
    case defect_kind::checkpoint_disagrees: return "checkpoint_disagrees";
    case defect_kind::commit_after_gap: return "commit_after_gap";
    case defect_kind::checkpoint_after_end: return "checkpoint_after_end";
    case defect_kind::stray_object: return "stray_object";
  }
  return "unknown";
}

FLOE_DECL log_verifier::log_verifier(std::string prefix) : prefix_(std::move(prefix)) {}

FLOE_DECL bool log_verifier::fail(defect_kind k, std::string object, std::string message) {
  if (!report_.first_defect) report_.first_defect = defect{k, std::move(object), std::move(message)};
  return false;
}

FLOE_DECL void log_verifier::listed(std::vector<std::string> const& log_keys,
                                    std::vector<std::string> const& checkpoint_keys) {
  auto const lf = log_folder(prefix_), cf = checkpoint_folder(prefix_);
  for (auto const& k : log_keys) {
    auto const n = k.rfind(lf, 0) == 0 ? number_of(std::string_view(k).substr(lf.size()), ".json") : std::nullopt;
    if (n)
      listed_commits_.push_back(*n);
    else
      strays_.push_back(k);
  }
  for (auto const& k : checkpoint_keys) {
    auto const n = k.rfind(cf, 0) == 0 ? number_of(std::string_view(k).substr(cf.size()), ".ndjson") : std::nullopt;
    if (n)
      checkpoints_.push_back(*n);
    else
      strays_.push_back(k);
  }
  std::sort(listed_commits_.begin(), listed_commits_.end());
  std::sort(checkpoints_.begin(), checkpoints_.end());
}

FLOE_DECL bool log_verifier::add_commit(std::uint64_t n, std::string_view body) {
  if (failed()) return false;
  std::string const key = commit_key(prefix_, n);
  auto c = decode_commit(body);
  if (!c) return fail(defect_kind::commit_malformed, key, "commit " + std::to_string(n) + " (" + key + ") does not parse: " + c.error().diag.message);
  if (c->number != n)
    return fail(defect_kind::commit_misnumbered, key,
                "commit " + std::to_string(n) + " (" + key + ") says it is commit " + std::to_string(c->number));
  for (auto const& e : c->entries) {
    if (auto const live = replay_.find(e); live != entry_set::npos)
      return fail(defect_kind::entry_twice, key,
                  "entry " + describe(e) + " in commit " + std::to_string(n) + " (" + key +
                      ") was already registered by commit " + std::to_string(commit_of_[live]) +
                      " and not removed since");
    if (apply_record(replay_, view_of(e)) == verdict::add) commit_of_.push_back(n);
  }
  report_.commits = n + 1;
  report_.entries = replay_.live();
  return true;
}

FLOE_DECL void log_verifier::end_of_log(std::uint64_t n) {
  end_ = n;
  if (n == 0) fail(defect_kind::no_genesis, commit_key(prefix_, 0), "no ledger: commit 0 (" + commit_key(prefix_, 0) + ") is missing");
}

FLOE_DECL checkpoint_reader& log_verifier::begin_checkpoint(std::uint64_t n) {
  cp_number_ = n;
  cp_seen_.assign(replay_.size(), false);
  cp_extra_.clear();
  cp_reader_.emplace(n, [this](entry_view const& e) {
    std::size_t ord = entry_set::npos;
    if (!e.removal) {
      ord = replay_.find(e);
    } else {
      // The first removal of that key with the same version and sequencer
      // not matched yet.
      for (auto o = replay_.newest_of_key(e.bucket, e.key); o != entry_set::npos; o = replay_.previous_of_key(o)) {
        auto const r = replay_.at(o);
        if (r.removal && !cp_seen_[o] && r.version_id == e.version_id && r.sequencer == e.sequencer) ord = o;
      }
    }
    if (ord == entry_set::npos) {
      if (cp_extra_.empty()) cp_extra_ = describe(e);
      return true;
    }
    if (cp_seen_[ord]) return false;  // "appears twice"
    cp_seen_[ord] = true;
    return true;
  });
  return *cp_reader_;
}

FLOE_DECL bool log_verifier::end_checkpoint(result<void> const& read) {
  std::uint64_t const n = cp_number_;
  std::string const key = checkpoint_key(prefix_, n);
  std::string const name = "checkpoint " + std::to_string(n) + " (" + key + ")";
  std::uint64_t const held = cp_reader_ ? cp_reader_->read() : 0;
  cp_reader_.reset();
  if (failed()) return false;
  if (!read) return fail(defect_kind::checkpoint_malformed, key, name + ": " + read.error().diag.message);
  if (!cp_extra_.empty())
    return fail(defect_kind::checkpoint_disagrees, key,
                name + " holds " + cp_extra_ + ", which no commit up to " + std::to_string(n) + " registered");
  std::size_t expected = 0;
  for (std::size_t i = 0; i < replay_.size(); ++i) expected += replay_.at(i).removed ? 0 : 1;
  if (held != expected) {
    std::string missing;
    for (std::size_t i = 0; i < cp_seen_.size(); ++i) {
      if (!cp_seen_[i] && !replay_.at(i).removed) {
        missing = describe(replay_.at(i));
        break;
      }
    }
    return fail(defect_kind::checkpoint_disagrees, key,
                name + " holds " + std::to_string(held) + " entries where commits 0.." + std::to_string(n) + " leave " +
                    std::to_string(expected) + " (live entries and removals)" + (missing.empty() ? "" : " (missing: " + missing + ")"));
  }
  ++report_.checkpoints_checked;
  return true;
}

FLOE_DECL verify_report log_verifier::finish() {
  if (!failed() && end_) {
    for (auto n : listed_commits_) {
      if (n >= *end_) {
        fail(defect_kind::commit_after_gap, commit_key(prefix_, n),
             "commit " + std::to_string(n) + " (" + commit_key(prefix_, n) + ") exists but commit " +
                 std::to_string(*end_) + " does not: a gap that readers stop at");
        break;
      }
    }
  }
  if (!failed() && end_) {
    for (auto n : checkpoints_) {
      if (n >= *end_) {
        fail(defect_kind::checkpoint_after_end, checkpoint_key(prefix_, n),
             "checkpoint " + std::to_string(n) + " (" + checkpoint_key(prefix_, n) + ") covers commits past the end of the log (" +
                 std::to_string(*end_) + " commits)");
        break;
      }
    }
  }
  if (!failed() && !strays_.empty())
    fail(defect_kind::stray_object, strays_.front(), "an object in the ledger's folders that is not a commit or checkpoint: " + strays_.front());
  return report_;
}

}  // namespace floe::ledger
