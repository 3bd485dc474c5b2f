#pragma once
#include <floe/ledger/sequencer.hpp>
#include <floe/watch/batch.hpp>

#include <map>
#include <set>
#include <tuple>
#include <utility>

namespace floe::watch {

FLOE_DECL bool object_filter::is_own_ledger(std::string_view bucket, std::string_view key) const noexcept {
  return !ledger_bucket.empty() && bucket == ledger_bucket && key.substr(0, ledger_prefix.size()) == ledger_prefix;
}

FLOE_DECL std::string_view to_string(message_verdict v) noexcept {
  switch (v) {
    case message_verdict::work: return "work";
    case message_verdict::test_event: return "test_event";
    case message_verdict::not_created: return "not_created";
    case message_verdict::no_match: return "no_match";
    case message_verdict::own_ledger: return "own_ledger";
    case message_verdict::malformed: return "malformed";
  }
  return "unknown";
}

FLOE_DECL std::string_view to_string(object_outcome o) noexcept {
  switch (o) {
    case object_outcome::pending: return "pending";
    case object_outcome::vanished: return "vanished";
    case object_outcome::replaced: return "replaced";
    case object_outcome::already: return "already";
    case object_outcome::stale: return "stale";
    case object_outcome::to_commit: return "to_commit";
    case object_outcome::committed: return "committed";
    case object_outcome::failed: return "failed";
  }
  return "unknown";
}

FLOE_DECL batch batch::plan(std::vector<received_message> messages, object_filter const& filter) {
  batch b;
  b.messages_ = std::move(messages);
  b.plans_.resize(b.messages_.size());
  // Identity as the events give it -> work item.
  std::map<std::tuple<std::string, std::string, std::string, std::string, bool>, std::size_t> index;
  for (std::size_t m = 0; m < b.messages_.size(); ++m) {
    auto& plan = b.plans_[m];
    auto parsed = parse_event_message(b.messages_[m].body, filter.limits);
    if (!parsed) {
      plan.verdict = message_verdict::malformed;
      plan.reason = parsed.error().diag.message.empty() ? parsed.error().code.message() : parsed.error().diag.message;
      continue;
    }
    plan.sns_envelope = parsed->sns_envelope;
    plan.format = parsed->format;
    plan.records = parsed->events.size();
    if (parsed->kind == message_kind::test_event) {
      plan.verdict = message_verdict::test_event;
      continue;
    }
    bool created = false, matched = false;
    for (auto& e : parsed->events) {
      if (!wants_action(e, filter.removals)) {
        ++plan.records_ignored;
        continue;
      }
      created = true;
      if (filter.is_own_ledger(e.bucket, e.key) || !matches_any(filter.patterns, e.bucket, e.key)) {
        ++plan.records_ignored;
        continue;
      }
      matched = true;
      bool const removal = e.kind == event_kind::object_removed;
      if (removal) {
        e.etag.clear();  // moto sends one; a removal has none
        e.size.reset();
        if (e.delete_marker) e.version_id.clear();  // the marker's id: every version goes
      }
      auto id = std::make_tuple(e.bucket, e.key, e.etag, e.version_id, removal);
      auto [it, fresh] = index.emplace(std::move(id), b.objects_.size());
      if (!fresh) {
        auto& seen = b.objects_[it->second];
        if (!e.sequencer.empty() && (seen.sequencer.empty() || ledger::compare_sequencers(e.sequencer, seen.sequencer) > 0))
          seen.sequencer = e.sequencer;
      }
      if (fresh) {
        object_work w;
        w.bucket = std::move(e.bucket);
        w.key = std::move(e.key);
        w.etag = std::move(e.etag);
        w.version_id = std::move(e.version_id);
        w.size = e.size;
        w.event_name = std::move(e.name);
        w.event_time = std::move(e.event_time);
        w.sequencer = std::move(e.sequencer);
        w.removal = removal;
        b.objects_.push_back(std::move(w));
      }
      auto& w = b.objects_[it->second];
      if (w.messages.empty() || w.messages.back() != m) w.messages.push_back(m);
      bool listed = false;
      for (auto o : plan.objects) listed = listed || o == it->second;
      if (!listed) plan.objects.push_back(it->second);
    }
    if (matched) {
      plan.verdict = message_verdict::work;
    } else if (!created) {
      plan.verdict = message_verdict::not_created;
    } else {
      // Every ObjectCreated record was filtered out: name the filter that
      // took them when it was the ledger's own prefix for all of them.
      bool all_own = true;
      for (auto const& e : parsed->events)
        if (wants_action(e, filter.removals) && !filter.is_own_ledger(e.bucket, e.key)) all_own = false;
      plan.verdict = all_own ? message_verdict::own_ledger : message_verdict::no_match;
    }
  }
  return b;
}

FLOE_DECL batch batch::of_objects(std::vector<object_work> objects) {
  batch b;
  b.objects_ = std::move(objects);
  for (auto& o : b.objects_) {
    o.messages.clear();
    o.outcome = object_outcome::pending;
  }
  return b;
}

FLOE_DECL std::vector<std::size_t> batch::nothing_to_do() const {
  std::vector<std::size_t> out;
  for (std::size_t m = 0; m < plans_.size(); ++m)
    if (plans_[m].verdict != message_verdict::work && plans_[m].verdict != message_verdict::malformed) out.push_back(m);
  return out;
}

FLOE_DECL std::vector<std::size_t> batch::malformed() const {
  std::vector<std::size_t> out;
  for (std::size_t m = 0; m < plans_.size(); ++m)
    if (plans_[m].verdict == message_verdict::malformed) out.push_back(m);
  return out;
}

FLOE_DECL void batch::set_outcome(std::size_t object, object_outcome o, std::string reason) {
  auto& w = objects_.at(object);
  w.outcome = o;
  w.reason = std::move(reason);
}

FLOE_DECL void batch::commit_confirmed() {
  for (auto& w : objects_)
    if (w.outcome == object_outcome::to_commit) w.outcome = object_outcome::committed;
}

FLOE_DECL void batch::commit_failed(std::string const& reason) {
  for (auto& w : objects_)
    if (w.outcome == object_outcome::to_commit) {
      w.outcome = object_outcome::failed;
      w.reason = reason;
    }
}

FLOE_DECL void batch::abandon(std::string const& reason) {
  for (auto& w : objects_)
    if (w.outcome == object_outcome::pending || w.outcome == object_outcome::to_commit) {
      w.outcome = object_outcome::failed;
      w.reason = reason;
    }
}

FLOE_DECL std::vector<std::size_t> batch::to_commit() const {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < objects_.size(); ++i)
    if (objects_[i].outcome == object_outcome::to_commit) out.push_back(i);
  return out;
}

FLOE_DECL bool batch::settled() const noexcept {
  for (auto const& w : objects_)
    if (w.outcome == object_outcome::pending || w.outcome == object_outcome::to_commit) return false;
  return true;
}

FLOE_DECL std::vector<std::size_t> batch::deletable() const {
  std::vector<std::size_t> out;
  for (std::size_t m = 0; m < plans_.size(); ++m) {
    if (plans_[m].verdict != message_verdict::work) continue;
    bool ok = true;
    for (auto o : plans_[m].objects) ok = ok && settled_ok(objects_[o].outcome);
    if (ok) out.push_back(m);
  }
  return out;
}

FLOE_DECL std::vector<std::size_t> batch::kept() const {
  std::vector<std::size_t> out;
  for (std::size_t m = 0; m < plans_.size(); ++m) {
    if (plans_[m].verdict == message_verdict::malformed) {
      out.push_back(m);
      continue;
    }
    if (plans_[m].verdict != message_verdict::work) continue;
    bool ok = true;
    for (auto o : plans_[m].objects) ok = ok && settled_ok(objects_[o].outcome);
    if (!ok) out.push_back(m);
  }
  return out;
}

FLOE_DECL std::vector<std::string> receipt_handles(batch const& b, std::vector<std::size_t> const& indices) {
  std::vector<std::string> out;
  std::set<std::string_view> seen;
  for (auto m : indices) {
    auto const& h = b.messages().at(m).receipt_handle;
    if (seen.insert(h).second) out.push_back(h);
  }
  return out;
}

}  // namespace floe::watch
