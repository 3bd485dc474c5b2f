// watch's log and --jsonl lines.

#include "watch_log.hpp"

#include "json_writer.hpp"
#include "output.hpp"

#include <chrono>
#include <cstdio>
#include <ctime>

namespace floe::cli {

namespace {

std::string now_iso() {
  auto const now = std::chrono::system_clock::now();
  auto const secs = std::chrono::system_clock::to_time_t(now);
  auto const ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  ::gmtime_r(&secs, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  return buf;
}

}  // namespace

std::string log_line(log_format f, watch::log_event const& e) {
  if (f == log_format::json) {
    json_writer w;
    w.begin_object().field("time", now_iso()).field("level", watch::to_string(e.level));
    w.field("event", e.event).field("message", e.message);
    for (auto const& [k, v] : e.fields) w.field(k, v);
    w.end_object();
    return w.line();
  }
  return now_iso() + " " + std::string(watch::to_string(e.level)) + " " + std::string(e.event) + " " +
         printable(e.message) + "\n";
}

std::string registered_line(watch::object_work const& w, std::uint64_t commit, std::string const& ledger) {
  json_writer j;
  j.begin_object().field("bucket", w.bucket).field("key", w.key);
  if (w.removal) {
    j.field("removal", true).field("version_id", w.version_id);
  } else {
    j.field("etag", w.head_etag).field("version_id", w.head_version_id).field("size", w.head_size);
  }
  if (!w.sequencer.empty()) j.field("sequencer", w.sequencer);
  j.field("event_time", w.event_time);
  j.field("event_name", w.event_name).field("commit", commit).field("ledger", ledger).end_object();
  return j.line();
}

void write_stderr(std::string const& line) { std::fwrite(line.data(), 1, line.size(), stderr); }

}  // namespace floe::cli
