#pragma once
#include <floe/watch/metrics.hpp>

#include <cstdio>

namespace floe::watch {

FLOE_DECL std::string_view to_string(stage s) noexcept {
  switch (s) {
    case stage::receive: return "receive";
    case stage::parse: return "parse";
    case stage::head: return "head";
    case stage::exec: return "exec";
    case stage::ledger: return "ledger";
    case stage::commit: return "commit";
    case stage::remove: return "delete";
    case stage::visibility: return "visibility";
    case stage::queue: return "queue";
    case stage::reconcile: return "reconcile";
  }
  return "unknown";
}

FLOE_DECL std::string_view error_kind(error const& e) noexcept {
  if (e.code.category() != floe_category()) return "system";
  switch (static_cast<errc>(e.code.value())) {
    case errc::ok: return "ok";
    case errc::invalid_argument: return "invalid_argument";
    case errc::malformed_reply: return "malformed_reply";
    case errc::reply_too_large: return "reply_too_large";
    case errc::xml_doctype_refused: return "xml_doctype_refused";
    case errc::xml_too_deep: return "xml_too_deep";
    case errc::precondition_failed: return "precondition_failed";
    case errc::conflict: return "conflict";
    case errc::unknown_outcome: return "unknown_outcome";
    case errc::unsupported: return "unsupported";
    case errc::stale_credentials: return "stale_credentials";
    case errc::throttled: return "throttled";
    case errc::transient: return "transient";
    case errc::clock_skew: return "clock_skew";
    case errc::not_found: return "not_found";
    case errc::denied: return "denied";
    case errc::service_error: return "service_error";
    case errc::retry_quota_exhausted: return "retry_quota_exhausted";
    case errc::attempts_exhausted: return "attempts_exhausted";
    case errc::timeout: return "timeout";
    case errc::credentials_unavailable: return "credentials_unavailable";
    case errc::body_not_replayable: return "body_not_replayable";
    case errc::checksum_mismatch: return "checksum_mismatch";
    case errc::invalid_receipt_handle: return "invalid_receipt_handle";
  }
  return "error";
}

FLOE_DECL void metrics::count_error(stage s, error const& e) { ++errors[{s, std::string(error_kind(e))}]; }

FLOE_DECL void metrics::observe_commit(std::chrono::nanoseconds took) noexcept {
  double const s = std::chrono::duration<double>(took).count();
  std::size_t i = 0;
  while (i < latency_buckets.size() && s > latency_buckets[i]) ++i;
  ++latency_counts[i];
  latency_sum += s;
  ++latency_count;
}

FLOE_DECL void metrics::observe_lag(std::chrono::milliseconds lag) noexcept {
  double const s = lag.count() > 0 ? std::chrono::duration<double>(lag).count() : 0.0;
  std::size_t i = 0;
  while (i < lag_buckets.size() && s > lag_buckets[i]) ++i;
  ++lag_counts[i];
  lag_sum += s;
  ++lag_count;
}

namespace detail {

inline void prom_family(std::string& out, std::string_view name, std::string_view type, std::string_view help) {
  out.append("# HELP ").append(name).append(" ").append(help).append("\n");
  out.append("# TYPE ").append(name).append(" ").append(type).append("\n");
}

inline void prom_value(std::string& out, std::string_view name, std::uint64_t v) {
  out.append(name).append(" ").append(std::to_string(v)).append("\n");
}

inline void prom_counter(std::string& out, std::string_view name, std::string_view help, std::uint64_t v) {
  prom_family(out, name, "counter", help);
  prom_value(out, name, v);
}

inline void prom_gauge(std::string& out, std::string_view name, std::string_view help, std::uint64_t v) {
  prom_family(out, name, "gauge", help);
  prom_value(out, name, v);
}

inline std::string prom_double(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

// A label value: backslash, double quote and newline escaped.
inline std::string prom_label(std::string_view v) {
  std::string out;
  for (char c : v) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

// A histogram from per-bucket (not cumulative) counts, the last for +Inf.
template <std::size_t N>
void prom_histogram(std::string& out, std::string_view name, std::string_view help, std::array<double, N> const& bounds,
                    std::array<std::uint64_t, N + 1> const& counts, double sum, std::uint64_t count) {
  prom_family(out, name, "histogram", help);
  std::uint64_t cumulative = 0;
  for (std::size_t i = 0; i < N; ++i) {
    cumulative += counts[i];
    out.append(name).append("_bucket{le=\"").append(prom_double(bounds[i])).append("\"} ");
    out.append(std::to_string(cumulative)).append("\n");
  }
  cumulative += counts[N];
  out.append(name).append("_bucket{le=\"+Inf\"} ").append(std::to_string(cumulative)).append("\n");
  out.append(name).append("_sum ").append(prom_double(sum)).append("\n");
  out.append(name).append("_count ").append(std::to_string(count)).append("\n");
}

}  // namespace detail

FLOE_DECL std::string render_prometheus(metrics const& m, health const& h) {
  using namespace detail;
  std::string out;
  out.reserve(4096);
  prom_counter(out, "floe_watch_messages_received_total", "Messages received from the queue.", m.messages_received);
  prom_counter(out, "floe_watch_messages_deleted_total", "Messages deleted after their work was done.", m.messages_deleted);
  prom_counter(out, "floe_watch_messages_kept_total",
               "Messages left in the queue (malformed, or naming an object that failed).", m.messages_kept);
  prom_counter(out, "floe_watch_messages_ignored_total",
               "Valid messages that asked for nothing (deleted): test events, other events, no pattern matched.",
               m.messages_ignored);
  prom_counter(out, "floe_watch_test_events_total", "s3:TestEvent messages.", m.test_events);
  prom_counter(out, "floe_watch_malformed_messages_total", "Message bodies that are no S3 event (kept).",
               m.malformed_messages);
  prom_counter(out, "floe_watch_objects_committed_total", "Objects registered in the ledger by this watcher.",
               m.objects_committed);
  prom_counter(out, "floe_watch_objects_skipped_total", "Objects deleted or replaced before their HEAD.",
               m.objects_skipped);
  prom_counter(out, "floe_watch_duplicates_skipped_total",
               "Objects the ledger held already, or named twice in one batch.", m.duplicates_skipped);
  prom_counter(out, "floe_watch_objects_failed_total", "Objects that failed (their messages kept).", m.objects_failed);
  prom_counter(out, "floe_watch_exec_runs_total", "Runs of the --exec command.", m.exec_runs);
  prom_counter(out, "floe_watch_exec_failures_total", "Runs of the --exec command that failed.", m.exec_failures);
  prom_counter(out, "floe_watch_commits_total", "Ledger commits written.", m.commits);
  prom_counter(out, "floe_watch_commit_conflicts_total", "409 replies to ledger commit writes.", m.commit_conflicts);
  prom_counter(out, "floe_watch_commit_retries_total", "Ledger commit write attempts beyond the first.",
               m.commit_retries);
  prom_counter(out, "floe_watch_commit_lost_races_total", "Commit numbers another writer took first.",
               m.commit_lost_races);
  prom_counter(out, "floe_watch_visibility_extensions_total", "Message visibility timeouts extended.",
               m.visibility_extensions);
  prom_counter(out, "floe_watch_messages_handed_back_total",
               "Messages made visible again at once on stop, for another watcher to take.", m.messages_handed_back);
  prom_counter(out, "floe_watch_messages_backed_off_total",
               "Messages given a longer visibility timeout after their object failed (doubling per receive).",
               m.messages_backed_off);
  prom_counter(out, "floe_watch_reconciled_objects_total",
               "Objects registered because a reconcile listing found them (no event had).", m.reconciled_objects);
  prom_counter(out, "floe_watch_reconcile_passes_total", "Reconcile listings completed.", m.reconcile_passes);
  prom_counter(out, "floe_watch_stale_events_total",
               "Events older than the newest event the ledger holds for their key (their sequencer): changed nothing.",
               m.stale_events);
  prom_counter(out, "floe_watch_removals_committed_total", "Removals written to the ledger (--removals).",
               m.removals_committed);
  prom_counter(out, "floe_watch_denials_total", "Times access was refused past a credential refresh.", m.denials);
  prom_counter(out, "floe_watch_credential_refreshes_total", "New credential sets since the start.",
               m.credential_refreshes);
  prom_counter(out, "floe_watch_hedges_sent_total",
               "Second attempts of S3 reads whose reply was late (hedged reads).", m.hedges_sent);
  prom_counter(out, "floe_watch_hedges_won_total", "Hedged reads whose second attempt answered first.", m.hedges_won);
  prom_family(out, "floe_watch_errors_total", "counter", "Errors by stage and kind.");
  for (auto const& [k, v] : m.errors) {
    out.append("floe_watch_errors_total{stage=\"").append(to_string(k.first)).append("\",kind=\"");
    out.append(prom_label(k.second)).append("\"} ").append(std::to_string(v)).append("\n");
  }
  prom_histogram(out, "floe_watch_commit_seconds", "Time to commit a batch to the ledger.", latency_buckets,
                 m.latency_counts, m.latency_sum, m.latency_count);
  prom_histogram(out, "floe_watch_event_lag_seconds",
                 "From an event's time (as the event says) to the commit that registered its object.", lag_buckets,
                 m.lag_counts, m.lag_sum, m.lag_count);
  prom_gauge(out, "floe_watch_healthy", "1 when the watcher is working, 0 when refused or failing.", h.ok ? 1 : 0);
  prom_gauge(out, "floe_watch_messages_held", "Messages held (in work, visibility extended).", h.messages_held);
  prom_gauge(out, "floe_watch_ledger_head", "The newest ledger commit this watcher knows.", h.ledger_head);
  prom_gauge(out, "floe_watch_ledger_entries", "Entries in the ledger, as this watcher knows it.", h.ledger_entries);
  prom_family(out, "floe_watch_oldest_unregistered_age_seconds", "gauge",
              "Age of the oldest event whose object this watcher holds unregistered (in work, or failed and due "
              "back); 0 when none.");
  out.append("floe_watch_oldest_unregistered_age_seconds ").append(prom_double(h.oldest_unregistered_age)).append("\n");
  if (h.queue_visible || h.queue_in_flight) {
    prom_family(out, "floe_watch_queue_messages", "gauge",
                "Messages in the queue as GetQueueAttributes last said: visible (waiting) or in flight (received, "
                "not deleted).");
    if (h.queue_visible)
      out.append("floe_watch_queue_messages{state=\"visible\"} ").append(std::to_string(*h.queue_visible)).append("\n");
    if (h.queue_in_flight)
      out.append("floe_watch_queue_messages{state=\"in_flight\"} ")
          .append(std::to_string(*h.queue_in_flight))
          .append("\n");
  }
  return out;
}

FLOE_DECL std::pair<unsigned, std::string> render_health(health const& h) {
  if (h.ok) return {200, "ok\n"};
  std::string line = "unhealthy: ";
  for (char c : h.reason) line += (c == '\n' || c == '\r') ? ' ' : c;
  return {503, line + "\n"};
}

}  // namespace floe::watch
