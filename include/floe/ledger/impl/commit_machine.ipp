#pragma once
#include <floe/ledger/commit_machine.hpp>
#include <floe/retry/policy.hpp>

namespace floe::ledger {

FLOE_DECL commit_machine::commit_machine(ledger_state& state, std::vector<entry> batch, std::string writer,
                                         std::string write_id_base, std::string time, commit_config const& cfg,
                                         time_point start, bool genesis)
    : state_(state),
      batch_(std::move(batch)),
      writer_(std::move(writer)),
      base_(std::move(write_id_base)),
      time_(std::move(time)),
      cfg_(cfg),
      start_(start),
      genesis_(genesis) {}

FLOE_DECL bool commit_machine::past_deadline(time_point now) const noexcept {
  return cfg_.deadline.count() > 0 && now - start_ >= cfg_.deadline;
}

FLOE_DECL commit_machine::step commit_machine::finish(error e) {
  if (e.diag.operation.empty()) e.diag.operation = "LedgerCommit";
  e.diag.attempt = stats_.writes;
  outcome_ = std::move(e);
  return step::done;
}

FLOE_DECL commit_machine::step commit_machine::give_up(boost::system::error_code code, std::string why) {
  std::string const n = std::to_string(number_);
  if (maybe_landed_) {
    return finish(error(errc::unknown_outcome, "commit " + n + ": " + why + ", while an earlier attempt at commit " + n +
                                                   " (write id " + write_id_ +
                                                   ") may still land: refresh the ledger to learn whether it did"));
  }
  error e(code);
  e.diag.message = "commit " + n + ": " + why + "; nothing of this batch was committed";
  return finish(std::move(e));
}

FLOE_DECL commit_machine::step commit_machine::back_off(unsigned n, double random01, time_point now) {
  retry::standard_params bp;
  bp.base_delay = cfg_.backoff_base;
  bp.max_backoff = cfg_.backoff_max;
  sleep_ = retry::backoff(bp, n, random01);
  if (cfg_.deadline.count() > 0 && now + sleep_ - start_ >= cfg_.deadline)
    return give_up(errc::timeout, "the commit's deadline passed after " + std::to_string(stats_.writes) + " write attempts");
  return step::sleep;
}

FLOE_DECL commit_machine::step commit_machine::start() {
  if (genesis_) {
    if (state_.next() != 0 || !batch_.empty())
      return finish(error(errc::invalid_argument, "the genesis commit goes first, with no entries"));
    number_ = 0;
  } else {
    if (state_.next() == 0)
      return finish(error(errc::invalid_argument, "the ledger is not loaded (refresh or init it first)"));
  }
  return prepare();
}

FLOE_DECL commit_machine::step commit_machine::prepare() {
  if (!genesis_) {
    // Each record is judged against the ledger with the batch's records
    // kept before it applied (an entry given twice is committed once; the
    // second is reported with those already registered).
    std::vector<entry> keep;
    keep.reserve(batch_.size());
    entry_set kept;
    for (auto& e : batch_) {
      switch (judge(state_.entries(), &kept, view_of(e))) {
        case verdict::add:
          apply_record(kept, view_of(e));
          keep.push_back(std::move(e));
          break;
        case verdict::already: stats_.already.push_back(std::move(e)); break;
        case verdict::stale: stats_.stale.push_back(std::move(e)); break;
      }
    }
    batch_ = std::move(keep);
    if (batch_.empty()) {
      outcome_ = std::move(stats_);
      return step::done;  // nothing new
    }
    number_ = state_.next();
  }
  write_id_ = base_ + "." + std::to_string(number_);
  commit c;
  c.number = number_;
  c.write_id = write_id_;
  c.writer = writer_;
  c.time = time_;
  c.entries = std::move(batch_);
  body_ = encode_commit(c);
  batch_ = std::move(c.entries);
  maybe_landed_ = false;
  failed_reads_ = 0;
  if (stats_.writes >= cfg_.max_writes)
    return give_up(errc::attempts_exhausted, "no commit number won in " + std::to_string(stats_.writes) + " write attempts");
  ++stats_.writes;
  return step::write;
}

FLOE_DECL commit_machine::step commit_machine::ours() {
  commit c;
  c.number = number_;
  c.write_id = write_id_;
  c.entries = std::move(batch_);
  state_.apply(c);
  stats_.wrote = true;
  stats_.created = genesis_;
  stats_.number = number_;
  stats_.write_id = write_id_;
  stats_.committed = std::move(c.entries);
  outcome_ = std::move(stats_);
  return step::done;
}

FLOE_DECL commit_machine::step commit_machine::on_write(result<s3::write_outcome> r, time_point now, double random01) {
  if (!r) {
    error e = r.error();
    if (maybe_landed_) return give_up(e.code, "a write failed (" + e.what() + ")");
    e.diag.message = "commit " + std::to_string(number_) + ": " + e.diag.message;
    return finish(std::move(e));
  }
  switch (s3::kind_of(*r)) {
    case s3::write_outcome_kind::written:
      return ours();
    case s3::write_outcome_kind::precondition_failed:
      return step::read;
    case s3::write_outcome_kind::unknown_outcome:
      ++stats_.unknown;
      maybe_landed_ = true;
      return step::read;
    case s3::write_outcome_kind::conflict:
      ++stats_.conflicts;
      return back_off(stats_.conflicts - 1, random01, now);
    case s3::write_outcome_kind::error:
      break;
  }
  return finish(error(errc::service_error, "commit " + std::to_string(number_) + ": an unexpected write outcome"));
}

FLOE_DECL commit_machine::step commit_machine::on_slept(time_point now) {
  if (past_deadline(now)) return give_up(errc::timeout, "the commit's deadline passed");
  return step::read;
}

FLOE_DECL commit_machine::step commit_machine::on_read(result<std::optional<std::string>> r, time_point now,
                                                       double random01) {
  ++stats_.reads;
  std::string const n = std::to_string(number_);
  if (!r) {
    ++failed_reads_;
    if (failed_reads_ > cfg_.max_failed_reads)
      return give_up(r.error().code, "reading it back failed " + std::to_string(failed_reads_) + " times (last: " + r.error().what() + ")");
    return back_off(failed_reads_ - 1, random01, now);
  }
  failed_reads_ = 0;
  if (!*r) {  // absent: nothing landed yet; the same number, body and write id again
    if (past_deadline(now)) return give_up(errc::timeout, "the commit's deadline passed");
    if (stats_.writes >= cfg_.max_writes)
      return give_up(errc::attempts_exhausted, "no commit number won in " + std::to_string(stats_.writes) + " write attempts");
    ++stats_.writes;
    return step::write;
  }
  auto c = decode_commit(**r);
  if (!c) return finish(error(errc::malformed_reply, "commit " + n + " is not a floe ledger commit: " + c.error().diag.message));
  if (c->number != number_)
    return finish(error(errc::malformed_reply, "commit " + n + " says it is commit " + std::to_string(c->number)));
  if (c->write_id == write_id_) {
    if (**r != body_)
      return finish(error(errc::malformed_reply, "commit " + n + " carries this commit's write id but not its bytes"));
    stats_.confirmed_by_read = true;
    return ours();
  }
  // Another writer's commit: learn it, and go on with what it did not hold.
  ++stats_.lost_races;
  maybe_landed_ = false;  // one winner per number: none of our attempts at it landed
  state_.apply(*c);
  if (genesis_) {
    outcome_ = std::move(stats_);
    return step::done;
  }
  if (past_deadline(now)) return give_up(errc::timeout, "the commit's deadline passed");
  return prepare();
}

}  // namespace floe::ledger
