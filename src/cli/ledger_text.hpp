#pragma once
// How `floe ledger` shows what a ledger holds: an entry or a commit as one
// text line or one JSON object, and the writer a commit names by default.

#include "json_writer.hpp"

#include <floe/ledger/entry.hpp>
#include <floe/ledger/format.hpp>

#include <string>

namespace floe::cli {

/// "SIZE ETAG VERSION s3://BUCKET/KEY\n" ("-" for no version id), with
/// control characters shown as \xNN: the URI is everything from the fourth
/// field on, whatever spaces the key holds.
std::string entry_line(ledger::entry_view const& e);
/// {"bucket", "key", "etag", "size", "version_id"}; exact.
void write_entry(json_writer& w, ledger::entry_view const& e);

/// "commit N  TIME  K entries  WRITER\n", then "  " and entry_line for each
/// entry it registered.
std::string commit_text(ledger::commit const& c);
/// {"commit", "time", "writer", "write_id", "entries": [...]} and a newline.
std::string commit_json_line(ledger::commit const& c);

/// The writer of commits made without --writer: "floe@HOST/PID".
std::string default_writer();

}  // namespace floe::cli
