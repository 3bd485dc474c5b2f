#pragma once
// `ls` text output as `aws s3 ls` prints it, column for column, so that
// scripts that cut its output by column move over unchanged:
//
//   2024-05-01 12:00:00       1234 name.txt      (date in local time)
//                              PRE dir/
//
// and `--summarize`'s two closing lines.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace floe::cli {

/// Seconds since the epoch from an ISO 8601 time as listings give it
/// ("2024-05-01T12:00:00.000Z"; fractions dropped), or nullopt.
std::optional<std::int64_t> epoch_of_iso8601(std::string_view text);

/// "YYYY-MM-DD HH:MM:SS" in the local time zone (TZ).
std::string local_time_text(std::int64_t epoch_seconds);

/// A size as `aws s3 ls --human-readable` writes it: "1 Byte", "10 Bytes",
/// "1.0 KiB", "3.5 MiB", ... (powers of 1024, one decimal).
std::string aws_human_size(std::uint64_t bytes);

/// What a line names: without --recursive the part after the last '/'
/// (relative to the listed "directory"), with it the whole key.
std::string_view listed_name(std::string_view key, bool recursive);

/// One object's line: date, size right-aligned in 10 columns (or human
/// readable), name; control characters escaped. `last_modified` is ISO 8601
/// (shown as given when it does not parse).
std::string object_line(std::string_view last_modified, std::uint64_t size, std::string_view name, bool human);

/// A common prefix's line: "PRE" at column 28, then its last segment and
/// '/' ("logs/2024/" -> "2024/").
std::string prefix_line(std::string_view common_prefix);

/// A bucket's line: creation date and name.
std::string bucket_line(std::string_view creation_date, std::string_view name);

/// --summarize: a blank line, "Total Objects: N", "   Total Size: S".
std::string summary_lines(std::uint64_t objects, std::uint64_t bytes, bool human);

}  // namespace floe::cli
