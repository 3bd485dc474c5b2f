#pragma once
#include <floe/json/writer.hpp>
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

// ["bucket","key","etag",size] or with a fifth member, the version id.
inline bool decode_entry(simdjson::dom::element el, entry& e, std::string& why) {
  simdjson::dom::array a;
  if (el.get(a) != simdjson::SUCCESS) return why = "an entry is not an array", false;
  std::size_t const n = a.size();
  if (n != 4 && n != 5) return why = "an entry has " + std::to_string(n) + " members, not 4 or 5", false;
  std::string_view b, k, t, v;
  std::uint64_t size = 0;
  if (a.at(0).get(b) != simdjson::SUCCESS || a.at(1).get(k) != simdjson::SUCCESS ||
      a.at(2).get(t) != simdjson::SUCCESS)
    return why = "an entry's bucket, key or ETag is not a string", false;
  if (a.at(3).get(size) != simdjson::SUCCESS) return why = "an entry's size is not a non-negative integer", false;
  if (n == 5) {
    if (a.at(4).get(v) != simdjson::SUCCESS) return why = "an entry's version id is not a string", false;
    if (v.empty()) return why = "an entry's version id is empty (it is left out when there is none)", false;
  }
  e.bucket.assign(b);
  e.key.assign(k);
  e.etag.assign(t);
  e.version_id.assign(v);
  e.size = size;
  if (auto r = validate_entry(e); !r) return why = r.error().diag.message, false;
  return true;
}

// The members every ledger object starts with.
inline bool check_head(simdjson::dom::object o, std::string_view kind, std::string& why) {
  std::uint64_t version = 0;
  if (o["floe_ledger"].get(version) != simdjson::SUCCESS) return why = "no floe_ledger version", false;
  if (version != static_cast<std::uint64_t>(format_version))
    return why = "floe_ledger version " + std::to_string(version) + " (this reader knows 1)", false;
  std::string_view k;
  if (o["kind"].get(k) != simdjson::SUCCESS || k != kind) return why = "kind is not \"" + std::string(kind) + "\"", false;
  return true;
}

// Opens a ledger object with the members check_head reads back and its
// number (a commit's or a checkpoint's; the hint's names a checkpoint).
inline void begin_head(json::writer& w, std::string_view kind, std::string_view number_name, std::uint64_t number) {
  w.begin_object();
  w.key("floe_ledger");
  w.value(format_version);
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
  w.begin_array();
  w.value(e.bucket);
  w.value(e.key);
  w.value(e.etag);
  w.value(e.size);
  if (!e.version_id.empty()) w.value(e.version_id);
  w.end_array();
}

FLOE_DECL std::string encode_commit(commit const& c) {
  std::string out;
  out.reserve(160 + c.entries.size() * 96);
  json::writer w(out);
  detail::begin_head(w, "commit", "commit", c.number);
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
    append_entry(out, entry_view{e.bucket, e.key, e.etag, e.version_id, e.size});
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
  if (!detail::check_head(o, "commit", why)) return detail::malformed(why);
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
    if (!detail::decode_entry(el, e, why))
      return detail::malformed("entry " + std::to_string(c.entries.size()) + ": " + why);
    c.entries.push_back(std::move(e));
  }
  if (c.number == 0 && !c.entries.empty()) return detail::malformed("the genesis commit (0) has entries");
  return c;
}

FLOE_DECL std::string encode_checkpoint(std::uint64_t n, entry_set const& entries) {
  std::string out;
  out.reserve(96 + entries.size() * 96);
  json::writer w(out);
  detail::begin_head(w, "checkpoint", "commit", n);
  w.key("entries");
  w.value(entries.size());
  w.end_object();
  out += '\n';
  for (std::size_t i = 0; i < entries.size(); ++i) {
    append_entry(out, entries.at(i));
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
    if (!detail::check_head(o, "checkpoint", why)) return fail(why);
    std::uint64_t n = 0;
    if (o["commit"].get(n) != simdjson::SUCCESS) return fail("no commit number");
    if (n != number_) return fail("it says it covers commit " + std::to_string(n));
    if (o["entries"].get(announced_) != simdjson::SUCCESS) return fail("no entry count");
    header_ = true;
    return {};
  }
  if (read_ >= announced_) return fail("more entries than the " + std::to_string(announced_) + " announced");
  entry e;
  if (!detail::decode_entry(doc, e, why)) return fail(why);
  ++read_;
  if (!sink_(entry_view{e.bucket, e.key, e.etag, e.version_id, e.size}))
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
    std::uint64_t n = 0;
    if (!detail::check_head(o, "hint", why) || o["checkpoint"].get(n) != simdjson::SUCCESS) return std::nullopt;
    return n;
  } catch (...) {
    return std::nullopt;
  }
}

}  // namespace floe::ledger
