#pragma once
#include <floe/json/writer.hpp>
#include <floe/checksum/algorithm.hpp>
#include <floe/ledger/format.hpp>

#include <simdjson.h>

#include <charconv>
#include <cstdio>
#include <ctime>

namespace floe::ledger {

namespace detail {

inline error malformed(std::string why) { return error(errc::malformed_reply, std::move(why)); }

inline std::string twenty_digits(std::uint64_t n) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%020llu", static_cast<unsigned long long>(n));
  return buf;
}

// A record needs format 2: it carries a sequencer or a checksum, or is a
// removal.
inline bool needs_v2(entry_view const& e) noexcept { return e.removal || !e.sequencer.empty() || e.checksum_algorithm; }

// The optional members of a format 2 record's object; false with `why`
// for a bad one.
inline bool decode_extras(simdjson::dom::object o, entry& e, std::string& why) {
  std::string_view v;
  if (auto el = o["version_id"]; el.error() != simdjson::NO_SUCH_FIELD) {
    if (el.get(v) != simdjson::SUCCESS || v.empty()) return why = "an entry's version_id is not a non-empty string", false;
    e.version_id.assign(v);
  }
  if (auto el = o["sequencer"]; el.error() != simdjson::NO_SUCH_FIELD) {
    if (el.get(v) != simdjson::SUCCESS || v.empty()) return why = "an entry's sequencer is not a non-empty string", false;
    e.sequencer.assign(v);
  }
  if (auto el = o["checksum"]; el.error() != simdjson::NO_SUCH_FIELD) {
    simdjson::dom::object c;
    std::string_view alg, value;
    if (el.get(c) != simdjson::SUCCESS || c["algorithm"].get(alg) != simdjson::SUCCESS ||
        c["value"].get(value) != simdjson::SUCCESS || value.empty())
      return why = "an entry's checksum is not {\"algorithm\": name, \"value\": string}", false;
    auto a = checksum::parse_algorithm(alg);
    if (!a) return why = "an entry's checksum: " + a.error().diag.message, false;
    e.checksum_algorithm = *a;
    e.checksum.assign(value);
  }
  return true;
}

// A registration: ["bucket","key","etag",size], with a fifth member the
// version id (a string) or, in format 2, an object of extras. A removal
// (format 2): {"removal":["bucket","key"], extras...}.
inline bool decode_entry(simdjson::dom::element el, entry& e, std::string& why, std::uint64_t version) {
  e = entry{};
  std::string_view b, k, t, v;
  simdjson::dom::object removal;
  if (version >= 2 && el.get(removal) == simdjson::SUCCESS) {
    simdjson::dom::array bk;
    if (removal["removal"].get(bk) != simdjson::SUCCESS || bk.size() != 2 || bk.at(0).get(b) != simdjson::SUCCESS ||
        bk.at(1).get(k) != simdjson::SUCCESS)
      return why = "an object entry is not a removal ({\"removal\": [bucket, key], ...})", false;
    if (removal["checksum"].error() != simdjson::NO_SUCH_FIELD) return why = "a removal with a checksum", false;
    e.removal = true;
    e.bucket.assign(b);
    e.key.assign(k);
    if (!decode_extras(removal, e, why)) return false;
    if (auto r = validate_entry(e); !r) return why = r.error().diag.message, false;
    return true;
  }
  simdjson::dom::array a;
  if (el.get(a) != simdjson::SUCCESS)
    return why = version >= 2 ? "an entry is not an array or a removal object" : "an entry is not an array", false;
  std::size_t const n = a.size();
  if (n != 4 && n != 5) return why = "an entry has " + std::to_string(n) + " members, not 4 or 5", false;
  std::uint64_t size = 0;
  if (a.at(0).get(b) != simdjson::SUCCESS || a.at(1).get(k) != simdjson::SUCCESS ||
      a.at(2).get(t) != simdjson::SUCCESS)
    return why = "an entry's bucket, key or ETag is not a string", false;
  if (a.at(3).get(size) != simdjson::SUCCESS) return why = "an entry's size is not a non-negative integer", false;
  if (n == 5) {
    simdjson::dom::object extras;
    if (version >= 2 && a.at(4).get(extras) == simdjson::SUCCESS) {
      if (!decode_extras(extras, e, why)) return false;
    } else {
      if (a.at(4).get(v) != simdjson::SUCCESS)
        return why = version >= 2 ? "an entry's fifth member is not a version id or an object"
                                  : "an entry's version id is not a string",
               false;
      if (v.empty()) return why = "an entry's version id is empty (it is left out when there is none)", false;
      e.version_id.assign(v);
    }
  }
  e.bucket.assign(b);
  e.key.assign(k);
  e.etag.assign(t);
  e.size = size;
  if (auto r = validate_entry(e); !r) return why = r.error().diag.message, false;
  return true;
}

// The members every ledger object starts with; `version` gets the format
// version (1 or 2).
inline bool check_head(simdjson::dom::object o, std::string_view kind, std::string& why, std::uint64_t& version) {
  if (o["floe_ledger"].get(version) != simdjson::SUCCESS) return why = "no floe_ledger version", false;
  if (version < 1 || version > static_cast<std::uint64_t>(format_version))
    return why = "floe_ledger version " + std::to_string(version) + " (this reader knows 1 and 2)", false;
  std::string_view k;
  if (o["kind"].get(k) != simdjson::SUCCESS || k != kind) return why = "kind is not \"" + std::string(kind) + "\"", false;
  return true;
}

// Opens a ledger object with the members check_head reads back and its
// number (a commit's or a checkpoint's; the hint's names a checkpoint).
inline void begin_head(json::writer& w, std::string_view kind, std::string_view number_name, std::uint64_t number,
                       int version = 1) {
  w.begin_object();
  w.key("floe_ledger");
  w.value(version);
  w.key("kind");
  w.value(kind);
  w.key(number_name);
  w.value(number);
}

}  // namespace detail

FLOE_DECL result<std::string> normalize_prefix(std::string_view prefix) {
  auto bad = [&](std::string why) { return error(errc::invalid_argument, "ledger prefix: " + why); };
  while (!prefix.empty() && prefix.front() == '/') prefix.remove_prefix(1);
  // The bound is the normalised prefix's, its final '/' included, so that
  // a normalised prefix normalises to itself.
  if (prefix.size() + (!prefix.empty() && prefix.back() != '/') > 900)
    return bad("longer than 900 bytes (with its final '/')");
  if (!json::valid_utf8(prefix)) return bad("not UTF-8");
  if (prefix.find("//") != std::string_view::npos) return bad("contains \"//\"");
  std::string p(prefix);
  if (!p.empty() && p.back() != '/') p += '/';
  return p;
}

FLOE_DECL std::string log_folder(std::string_view prefix) { return std::string(prefix) + "_log/"; }
FLOE_DECL std::string checkpoint_folder(std::string_view prefix) { return std::string(prefix) + "_checkpoints/"; }

FLOE_DECL std::string commit_key(std::string_view prefix, std::uint64_t n) {
  return log_folder(prefix) + detail::twenty_digits(n) + ".json";
}

FLOE_DECL std::string checkpoint_key(std::string_view prefix, std::uint64_t n) {
  return checkpoint_folder(prefix) + detail::twenty_digits(n) + ".ndjson";
}

FLOE_DECL std::string hint_key(std::string_view prefix) { return std::string(prefix) + "_last_checkpoint.json"; }

FLOE_DECL std::optional<std::uint64_t> number_of(std::string_view name, std::string_view suffix) {
  if (name.size() != 20 + suffix.size() || name.substr(20) != suffix) return std::nullopt;
  std::uint64_t n = 0;
  auto [p, ec] = std::from_chars(name.data(), name.data() + 20, n);
  if (ec != std::errc() || p != name.data() + 20) return std::nullopt;
  return n;
}

FLOE_DECL std::string iso8601_utc(std::int64_t unix_seconds) {
  std::time_t const t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

FLOE_DECL void append_entry(std::string& out, entry_view const& e) {
  json::writer w(out);
  auto extras = [&] {
    if (!e.version_id.empty()) {
      w.key("version_id");
      w.value(e.version_id);
    }
    if (!e.sequencer.empty()) {
      w.key("sequencer");
      w.value(e.sequencer);
    }
    if (e.checksum_algorithm) {
      w.key("checksum");
      w.begin_object();
      w.key("algorithm");
      w.value(checksum::s3_name(*e.checksum_algorithm));
      w.key("value");
      w.value(e.checksum);
      w.end_object();
    }
  };
  if (e.removal) {
    w.begin_object();
    w.key("removal");
    w.begin_array();
    w.value(e.bucket);
    w.value(e.key);
    w.end_array();
    extras();
    w.end_object();
    return;
  }
  w.begin_array();
  w.value(e.bucket);
  w.value(e.key);
  w.value(e.etag);
  w.value(e.size);
  if (detail::needs_v2(e)) {
    w.begin_object();
    extras();
    w.end_object();
  } else if (!e.version_id.empty()) {
    w.value(e.version_id);
  }
  w.end_array();
}

FLOE_DECL int format_of(std::vector<entry> const& entries) noexcept {
  for (auto const& e : entries)
    if (detail::needs_v2(view_of(e))) return 2;
  return 1;
}

FLOE_DECL std::string encode_commit(commit const& c) {
  std::string out;
  out.reserve(160 + c.entries.size() * 96);
  json::writer w(out);
  detail::begin_head(w, "commit", "commit", c.number, format_of(c.entries));
  w.key("write_id");
  w.value(c.write_id);
  w.key("writer");
  w.value(c.writer);
  w.key("time");
  w.value(c.time);
  w.key("entries");
  w.begin_array();
  for (auto const& e : c.entries) {
    w.splice_values(true);
    append_entry(out, view_of(e));
  }
  w.end_array();
  w.end_object();
  return out;
}

FLOE_DECL result<commit> decode_commit(std::string_view body) {
  if (body.size() > max_commit_bytes) return error(errc::reply_too_large, "a commit larger than 32 MiB");
  simdjson::dom::parser parser;
  simdjson::padded_string padded(body.data(), body.size());
  simdjson::dom::element doc;
  if (auto err = parser.parse(padded).get(doc); err != simdjson::SUCCESS)
    return detail::malformed(std::string("not JSON (") + simdjson::error_message(err) + ")");
  simdjson::dom::object o;
  if (doc.get(o) != simdjson::SUCCESS) return detail::malformed("not a JSON object");
  std::string why;
  std::uint64_t version = 0;
  if (!detail::check_head(o, "commit", why, version)) return detail::malformed(why);
  commit c;
  if (o["commit"].get(c.number) != simdjson::SUCCESS) return detail::malformed("no commit number");
  std::string_view s;
  if (o["write_id"].get(s) != simdjson::SUCCESS || s.empty() || s.size() > max_write_id_bytes)
    return detail::malformed("no write_id (a string of 1 to 128 bytes)");
  c.write_id.assign(s);
  if (o["writer"].get(s) != simdjson::SUCCESS || s.size() > max_writer_bytes)
    return detail::malformed("no writer (a string of at most 1024 bytes)");
  c.writer.assign(s);
  if (o["time"].get(s) != simdjson::SUCCESS || s.size() > 64) return detail::malformed("no time");
  c.time.assign(s);
  simdjson::dom::array entries;
  if (o["entries"].get(entries) != simdjson::SUCCESS) return detail::malformed("no entries array");
  c.entries.reserve(entries.size());
  for (simdjson::dom::element el : entries) {
    entry e;
    if (!detail::decode_entry(el, e, why, version))
      return detail::malformed("entry " + std::to_string(c.entries.size()) + ": " + why);
    c.entries.push_back(std::move(e));
  }
  if (c.number == 0 && !c.entries.empty()) return detail::malformed("the genesis commit (0) has entries");
  return c;
}

FLOE_DECL std::string encode_checkpoint(std::uint64_t n, entry_set const& entries) {
  // Removed registrations are left out (a removal keeps the key's
  // sequencer): the lines are the live registrations and the removals.
  std::size_t lines = 0;
  int version = 1;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    auto const e = entries.at(i);
    if (e.removed) continue;
    ++lines;
    if (detail::needs_v2(e)) version = 2;
  }
  std::string out;
  out.reserve(96 + lines * 96);
  json::writer w(out);
  detail::begin_head(w, "checkpoint", "commit", n, version);
  w.key("entries");
  w.value(lines);
  w.end_object();
  out += '\n';
  for (std::size_t i = 0; i < entries.size(); ++i) {
    auto const e = entries.at(i);
    if (e.removed) continue;
    append_entry(out, e);
    out += '\n';
  }
  return out;
}

// --- checkpoint_reader -----------------------------------------------------------

struct checkpoint_reader::parser {
  simdjson::dom::parser json;
  std::string buf;  // one line, with simdjson's padding in its capacity
};

FLOE_DECL checkpoint_reader::checkpoint_reader(std::uint64_t number, sink on_entry)
    : parser_(std::make_unique<parser>()), number_(number), sink_(std::move(on_entry)) {}

FLOE_DECL checkpoint_reader::~checkpoint_reader() = default;

FLOE_DECL result<void> checkpoint_reader::fail(std::string why) {
  failed_ = true;
  return detail::malformed("checkpoint " + std::to_string(number_) + ", line " + std::to_string(line_no_) + ": " + why);
}

FLOE_DECL result<void> checkpoint_reader::line(std::string_view text) {
  ++line_no_;
  if (text.empty()) return fail("an empty line");
  auto& p = *parser_;
  p.buf.reserve(text.size() + simdjson::SIMDJSON_PADDING);
  p.buf.assign(text.data(), text.size());
  simdjson::dom::element doc;
  if (auto err = p.json.parse(p.buf.data(), p.buf.size(), false).get(doc); err != simdjson::SUCCESS)
    return fail(std::string("not JSON (") + simdjson::error_message(err) + ")");
  std::string why;
  if (!header_) {
    simdjson::dom::object o;
    if (doc.get(o) != simdjson::SUCCESS) return fail("the header is not a JSON object");
    if (!detail::check_head(o, "checkpoint", why, version_)) return fail(why);
    std::uint64_t n = 0;
    if (o["commit"].get(n) != simdjson::SUCCESS) return fail("no commit number");
    if (n != number_) return fail("it says it covers commit " + std::to_string(n));
    if (o["entries"].get(announced_) != simdjson::SUCCESS) return fail("no entry count");
    header_ = true;
    return {};
  }
  if (read_ >= announced_) return fail("more entries than the " + std::to_string(announced_) + " announced");
  entry e;
  if (!detail::decode_entry(doc, e, why, version_)) return fail(why);
  ++read_;
  if (!sink_(view_of(e)))
    return fail("entry " + describe(e) + " appears twice");
  return {};
}

FLOE_DECL result<void> checkpoint_reader::feed(std::string_view piece) {
  if (failed_) return detail::malformed("checkpoint " + std::to_string(number_) + ": already failed");
  while (!piece.empty()) {
    auto const nl = piece.find('\n');
    std::string_view const part = piece.substr(0, nl);
    if (pending_.size() + part.size() > max_checkpoint_line_bytes)
      return fail("a line longer than " + std::to_string(max_checkpoint_line_bytes) + " bytes");
    if (nl == std::string_view::npos) {
      pending_.append(part);
      break;
    }
    if (pending_.empty()) {
      if (auto r = line(part); !r) return r;
    } else {
      pending_.append(part);
      auto r = line(pending_);
      pending_.clear();
      if (!r) return r;
    }
    piece.remove_prefix(nl + 1);
  }
  return {};
}

FLOE_DECL result<void> checkpoint_reader::finish() {
  if (failed_) return detail::malformed("checkpoint " + std::to_string(number_) + ": already failed");
  if (!pending_.empty()) return fail("the last line has no end (the checkpoint is cut short)");
  if (!header_) return fail("empty: no header line");
  if (read_ != announced_)
    return fail("announces " + std::to_string(announced_) + " entries but holds " + std::to_string(read_));
  return {};
}

FLOE_DECL std::string encode_hint(std::uint64_t checkpoint) {
  std::string out;
  json::writer w(out);
  detail::begin_head(w, "hint", "checkpoint", checkpoint);
  w.end_object();
  return out;
}

FLOE_DECL std::optional<std::uint64_t> decode_hint(std::string_view body) noexcept {
  try {
    if (body.size() > 4096) return std::nullopt;
    simdjson::dom::parser parser;
    simdjson::padded_string padded(body.data(), body.size());
    simdjson::dom::element doc;
    simdjson::dom::object o;
    if (parser.parse(padded).get(doc) != simdjson::SUCCESS || doc.get(o) != simdjson::SUCCESS) return std::nullopt;
    std::string why;
    std::uint64_t n = 0, version = 0;
    if (!detail::check_head(o, "hint", why, version) || o["checkpoint"].get(n) != simdjson::SUCCESS) return std::nullopt;
    return n;
  } catch (...) {
    return std::nullopt;
  }
}

}  // namespace floe::ledger
