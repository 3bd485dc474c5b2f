#pragma once
// watch's output: its log lines on stderr (--log-format text|json) and the
// registered objects on stdout (--jsonl). One line each, written whole.
//
// text:  2026-12-01T18:00:00.123Z info registered s3://lake/a registered in commit 5
// json:  {"time": ..., "level": "info", "event": "registered", "message": ..., FIELDS...}
// jsonl: {"bucket", "key", "etag", "version_id", "size", "event_time",
//         "event_name", "commit", "ledger"}
// Control characters in text lines are shown as \xNN (keys may hold any
// byte); JSON is exact.

#include <floe/watch/watcher.hpp>

#include <cstdint>
#include <string>

namespace floe::cli {

enum class log_format { text, json };

std::string log_line(log_format f, watch::log_event const& e);
std::string registered_line(watch::object_work const& w, std::uint64_t commit, std::string const& ledger);

/// Writes a whole line to stderr.
void write_stderr(std::string const& line);

}  // namespace floe::cli
