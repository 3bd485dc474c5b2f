#pragma once
// What the CLI writes: stdout, the one-line error report on stderr, the
// debug log, and the documented exit code each error maps to.

#include "command_line.hpp"

#include <floe/error.hpp>

#include <string>
#include <string_view>

namespace floe::cli {

class json_writer;  // json_writer.hpp

/// Documented exit codes.
enum exit_code : int {
  exit_ok = 0,
  exit_error = 1,
  exit_usage = 2,
  exit_condition = 3,  // precondition failed, conflict, not modified
  exit_not_found = 4,
};

/// Of two exit codes, the first error's, preferring a plain error over the
/// rest (the exit code of many objects).
inline int worse(int a, int b) {
  if (a == exit_ok) return b;
  if (b == exit_error) return b;
  return a;
}

/// `s` for a terminal: C0 control characters, DEL, the C1 controls
/// (U+0080..U+009F, as UTF-8) and bytes that are not UTF-8 as \xNN each;
/// the rest (text in UTF-8) as is.
std::string printable(std::string_view s);

/// Writes all of `s` to stdout (fd 1). False on a write error (EPIPE...).
bool write_stdout(std::string_view s);

/// The exit code an error maps to.
int exit_code_for(error const& e) noexcept;

/// A short stable name for an error's kind ("not_found", "precondition_failed", ...).
std::string kind_name(error const& e);

/// Writes the error to stderr: one line, "floe: error: OPERATION RESOURCE:
/// STATUS CODE: MESSAGE (request id ID)", or a JSON object with --json.
/// Fills operation and resource from the arguments when the error lacks them.
void report_error(global_options const& g, error e, std::string_view operation, std::string_view resource);

/// The error as one JSON object: kind, operation, resource, status, code,
/// message, request_id, exit_code (what `--json` puts under "error").
void write_error_fields(json_writer& w, error const& e);

/// A usage error (exit 2): one line on stderr and a pointer to --help.
void report_usage(std::string_view verb, std::string_view message);

/// -v / --debug: one line on stderr, prefixed "floe: debug: ". Callers
/// never pass secrets: only methods, paths, statuses, request ids and the
/// credentials' own redacted description.
void debug_line(global_options const& g, std::string_view line);

}  // namespace floe::cli
