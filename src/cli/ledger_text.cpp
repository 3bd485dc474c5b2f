// Entries and commits as `floe ledger` shows them.

#include "ledger_text.hpp"

#include "output.hpp"
#include "s3_uri.hpp"

#include <unistd.h>

namespace floe::cli {

std::string entry_line(ledger::entry_view const& e) {
  std::string s = e.removal ? std::string("removed") : std::to_string(e.size);
  s += ' ';
  s += e.removal ? std::string("-") : printable(e.etag);
  s += ' ';
  s += e.version_id.empty() ? std::string("-") : printable(e.version_id);
  s += ' ';
  s += printable(uri_of(e.bucket, e.key));
  s += '\n';
  return s;
}

void write_entry(json_writer& w, ledger::entry_view const& e) {
  w.begin_object().field("bucket", e.bucket).field("key", e.key);
  if (e.removal) {
    w.field("removal", true);
  } else {
    w.field("etag", e.etag).field("size", e.size);
  }
  w.field("version_id", e.version_id);
  if (!e.sequencer.empty()) w.field("sequencer", e.sequencer);
  if (e.checksum_algorithm)
    w.field("checksum_algorithm", checksum::s3_name(*e.checksum_algorithm)).field("checksum", e.checksum);
  w.end_object();
}

std::string commit_text(ledger::commit const& c) {
  std::string s = "commit " + std::to_string(c.number) + "  " + printable(c.time) + "  " +
                  std::to_string(c.entries.size()) + (c.entries.size() == 1 ? " entry  " : " entries  ") +
                  printable(c.writer) + "\n";
  for (auto const& e : c.entries) s += "  " + entry_line(ledger::view_of(e));
  return s;
}

std::string commit_json_line(ledger::commit const& c) {
  json_writer w;
  w.begin_object().field("commit", c.number).field("time", c.time).field("writer", c.writer);
  w.field("write_id", c.write_id).key("entries").begin_array();
  for (auto const& e : c.entries) write_entry(w, ledger::view_of(e));
  w.end_array().end_object();
  return w.line();
}

std::string default_writer() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0 || host[0] == '\0') host[0] = '\0';
  std::string h = host[0] != '\0' ? std::string(host) : std::string("localhost");
  return "floe@" + h + "/" + std::to_string(::getpid());
}

}  // namespace floe::cli
