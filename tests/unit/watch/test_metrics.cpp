// watch::metrics: the Prometheus text and /healthz.
#include <floe/watch/metrics.hpp>

#include <doctest/doctest.h>

#include <string>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace watch_metrics_test {

using namespace floe::watch;
using namespace std::chrono_literals;

namespace {
bool has_line(std::string const& text, std::string const& line) {
  return ("\n" + text).find("\n" + line + "\n") != std::string::npos;
}
}  // namespace

TEST_CASE("counters, errors by stage and kind, the commit histogram, gauges") {
  metrics m;
  m.messages_received = 12;
  m.messages_deleted = 9;
  m.messages_kept = 2;
  m.test_events = 1;
  m.malformed_messages = 1;
  m.objects_committed = 7;
  m.duplicates_skipped = 3;
  m.commit_conflicts = 4;
  m.commit_retries = 5;
  m.credential_refreshes = 1;
  m.messages_handed_back = 6;
  m.messages_backed_off = 8;
  m.reconciled_objects = 11;
  m.hedges_sent = 13;
  m.hedges_won = 10;
  m.count_error(stage::head, floe::error(floe::errc::denied));
  m.count_error(stage::head, floe::error(floe::errc::denied));
  m.count_error(stage::remove, floe::error(floe::errc::transient));
  m.observe_commit(30ms);
  m.observe_commit(2s);
  m.observe_commit(60s);
  health h;
  h.messages_held = 3;
  auto t = render_prometheus(m, h);
  CHECK(has_line(t, "# TYPE floe_watch_messages_received_total counter"));
  CHECK(has_line(t, "floe_watch_messages_received_total 12"));
  CHECK(has_line(t, "floe_watch_messages_deleted_total 9"));
  CHECK(has_line(t, "floe_watch_messages_kept_total 2"));
  CHECK(has_line(t, "floe_watch_test_events_total 1"));
  CHECK(has_line(t, "floe_watch_malformed_messages_total 1"));
  CHECK(has_line(t, "floe_watch_objects_committed_total 7"));
  CHECK(has_line(t, "floe_watch_duplicates_skipped_total 3"));
  CHECK(has_line(t, "floe_watch_commit_conflicts_total 4"));
  CHECK(has_line(t, "floe_watch_commit_retries_total 5"));
  CHECK(has_line(t, "floe_watch_credential_refreshes_total 1"));
  CHECK(has_line(t, "floe_watch_hedges_sent_total 13"));
  CHECK(has_line(t, "floe_watch_hedges_won_total 10"));
  CHECK(has_line(t, "floe_watch_messages_handed_back_total 6"));
  CHECK(has_line(t, "floe_watch_messages_backed_off_total 8"));
  CHECK(has_line(t, "floe_watch_reconciled_objects_total 11"));
  CHECK(has_line(t, "floe_watch_reconcile_passes_total 0"));
  CHECK(has_line(t, "floe_watch_errors_total{stage=\"head\",kind=\"denied\"} 2"));
  CHECK(has_line(t, "floe_watch_errors_total{stage=\"delete\",kind=\"transient\"} 1"));
  CHECK(has_line(t, "floe_watch_commit_seconds_bucket{le=\"0.025\"} 0"));
  CHECK(has_line(t, "floe_watch_commit_seconds_bucket{le=\"0.05\"} 1"));
  CHECK(has_line(t, "floe_watch_commit_seconds_bucket{le=\"2.5\"} 2"));
  CHECK(has_line(t, "floe_watch_commit_seconds_bucket{le=\"10\"} 2"));
  CHECK(has_line(t, "floe_watch_commit_seconds_bucket{le=\"+Inf\"} 3"));
  CHECK(has_line(t, "floe_watch_commit_seconds_count 3"));
  CHECK(has_line(t, "floe_watch_commit_seconds_sum 62.03"));
  CHECK(has_line(t, "floe_watch_healthy 1"));
  CHECK(has_line(t, "floe_watch_messages_held 3"));
  // Every sample line belongs to a family announced by a TYPE line.
  std::size_t pos = 0;
  while (pos < t.size()) {
    auto end = t.find('\n', pos);
    auto line = t.substr(pos, end - pos);
    pos = end + 1;
    if (line.empty() || line[0] == '#') continue;
    auto name = line.substr(0, line.find_first_of("{ "));
    for (auto suffix : {"_bucket", "_sum", "_count"})
      for (std::string family : {"floe_watch_commit_seconds", "floe_watch_event_lag_seconds"})
        if (name == family + suffix) name = family;
    CHECK_MESSAGE(t.find("# TYPE " + name + " ") != std::string::npos, line);
  }
}

TEST_CASE("the event lag histogram, the oldest unregistered age, the queue's messages once polled") {
  metrics m;
  m.observe_lag(80ms);
  m.observe_lag(1500ms);
  m.observe_lag(-3s);  // an event time ahead of this clock: 0
  m.observe_lag(7200s);
  health h;
  auto t = render_prometheus(m, h);
  CHECK(has_line(t, "# TYPE floe_watch_event_lag_seconds histogram"));
  CHECK(has_line(t, "floe_watch_event_lag_seconds_bucket{le=\"0.1\"} 2"));
  CHECK(has_line(t, "floe_watch_event_lag_seconds_bucket{le=\"1\"} 2"));
  CHECK(has_line(t, "floe_watch_event_lag_seconds_bucket{le=\"2.5\"} 3"));
  CHECK(has_line(t, "floe_watch_event_lag_seconds_bucket{le=\"3600\"} 3"));
  CHECK(has_line(t, "floe_watch_event_lag_seconds_bucket{le=\"+Inf\"} 4"));
  CHECK(has_line(t, "floe_watch_event_lag_seconds_count 4"));
  CHECK(has_line(t, "floe_watch_event_lag_seconds_sum 7201.58"));
  CHECK(has_line(t, "# TYPE floe_watch_oldest_unregistered_age_seconds gauge"));
  CHECK(has_line(t, "floe_watch_oldest_unregistered_age_seconds 0"));
  CHECK(t.find("floe_watch_queue_messages") == std::string::npos);  // not polled yet
  h.oldest_unregistered_age = 12.5;
  h.queue_visible = 7;
  h.queue_in_flight = 0;
  t = render_prometheus(m, h);
  CHECK(has_line(t, "floe_watch_oldest_unregistered_age_seconds 12.5"));
  CHECK(has_line(t, "# TYPE floe_watch_queue_messages gauge"));
  CHECK(has_line(t, "floe_watch_queue_messages{state=\"visible\"} 7"));
  CHECK(has_line(t, "floe_watch_queue_messages{state=\"in_flight\"} 0"));
  CHECK(to_string(stage::queue) == "queue");
  CHECK(to_string(stage::reconcile) == "reconcile");
}

TEST_CASE("/healthz: 200 ok, or 503 with the reason on one line") {
  health h;
  CHECK(render_health(h) == std::pair<unsigned, std::string>{200, "ok\n"});
  h.ok = false;
  h.reason = "denied: HeadObject lake/a: 403\nAccessDenied";
  auto [status, body] = render_health(h);
  CHECK(status == 503);
  CHECK(body == "unhealthy: denied: HeadObject lake/a: 403 AccessDenied\n");
  auto t = render_prometheus(metrics{}, h);
  CHECK(has_line(t, "floe_watch_healthy 0"));
}

TEST_CASE("error kinds have floe's names") {
  CHECK(error_kind(floe::error(floe::errc::invalid_receipt_handle)) == "invalid_receipt_handle");
  CHECK(error_kind(floe::error(boost::system::error_code(5, boost::system::system_category()))) == "system");
}

}  // namespace watch_metrics_test
