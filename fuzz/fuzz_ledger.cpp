// Fuzz target: the ledger's objects on S3 (ledger/format.hpp) — a commit
// document (decode_commit), a checkpoint (checkpoint_reader, fed whole and
// in pieces), the hint (decode_hint), the prefix and the object names.
//
// The input is tried as each of them. Its first 8 bytes also give a number
// and the whole input a prefix, for the names.
//
// With clang and -Dfuzzing=true this is a libFuzzer target (ASan + UBSan);
// with replay_main.cpp (any compiler) a replay program (fuzz/README.md).
//
// Besides "no crash, no throw, no sanitizer report":
// - an accepted commit re-encodes (encode_commit) to a document that
//   decodes to the same commit, and encodes again to the same bytes; every
//   entry passes validate_entry; a refusal has its code and a message;
// - a checkpoint reads the same whole, a byte at a time and in other
//   pieces (outcome, message, entries); an accepted one holds as many
//   entries as it announced, and encode_checkpoint of them reads back to
//   the same entries and re-encodes to the same bytes;
// - an accepted hint's number encodes (encode_hint) to a hint that decodes
//   to it;
// - names: number_of reads back what commit_key and checkpoint_key write,
//   and a name it accepts is the one they write for its number;
//   normalize_prefix is idempotent and its result is "" or ends in '/'.

#include <floe/error.hpp>
#include <floe/ledger/entry.hpp>
#include <floe/ledger/format.hpp>

#include <simdjson.h>

#include "fuzz_support.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace {

using floe_fuzz::check;
namespace ledger = floe::ledger;

bool one_line(std::string const& m) { return !m.empty() && m.find('\n') == std::string::npos; }

void check_commit(std::string_view bytes) {
  auto c = ledger::decode_commit(bytes);
  if (!c) {
    check(c.error().code == floe::errc::malformed_reply || c.error().code == floe::errc::reply_too_large,
          "a commit refused with an unexpected code");
    check(one_line(c.error().diag.message), "a commit refused without a one-line message");
    return;
  }
  check(!c->write_id.empty() && c->write_id.size() <= ledger::max_write_id_bytes, "a bad write_id accepted");
  check(c->writer.size() <= ledger::max_writer_bytes, "a writer over its bound accepted");
  check(c->number != 0 || c->entries.empty(), "a genesis commit with entries accepted");
  for (auto const& e : c->entries) check(ledger::validate_entry(e).has_value(), "an invalid entry accepted");

  std::string const encoded = ledger::encode_commit(*c);
  auto again = ledger::decode_commit(encoded);
  check(again.has_value(), "an accepted commit re-encodes to one that is refused");
  check(again->number == c->number && again->write_id == c->write_id && again->writer == c->writer &&
            again->time == c->time && again->entries == c->entries,
        "an accepted commit re-encodes to another commit");
  check(ledger::encode_commit(*again) == encoded, "encode_commit is not stable over a round trip");
}

struct checkpoint_outcome {
  bool ok = false;
  std::string message;
  std::vector<ledger::entry> entries;
  std::uint64_t announced = 0;
  bool operator==(checkpoint_outcome const&) const = default;
};

checkpoint_outcome read_checkpoint(std::string_view bytes, std::uint64_t number, int mode, std::uint64_t seed) {
  checkpoint_outcome o;
  ledger::entry_set seen;
  ledger::checkpoint_reader reader(number, [&](ledger::entry_view const& e) {
    auto entry = e.to_entry();
    if (seen.insert(entry) == ledger::entry_set::npos) return false;
    o.entries.push_back(std::move(entry));
    return true;
  });
  floe::result<void> r;
  std::size_t at = 0;
  while (at < bytes.size()) {
    std::size_t n = bytes.size() - at;
    if (mode == 1) n = 1;
    if (mode == 2) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      n = 1 + (seed >> 33) % 97;
    }
    if (n > bytes.size() - at) n = bytes.size() - at;
    r = reader.feed(bytes.substr(at, n));
    at += n;
    if (!r) break;
  }
  if (r) r = reader.finish();
  o.ok = r.has_value();
  if (!r) o.message = r.error().diag.message;
  o.announced = reader.announced();
  if (o.ok) check(reader.read() == reader.announced(), "an accepted checkpoint read other than it announced");
  return o;
}

// The number the first line says it covers (any other number is refused
// at the header, which the checks cover too).
std::uint64_t header_number(std::string_view bytes) {
  auto const nl = bytes.find('\n');
  std::string_view const first = bytes.substr(0, nl);
  simdjson::dom::parser p;
  simdjson::padded_string padded(first.data(), first.size());
  simdjson::dom::element doc;
  std::uint64_t n = 0;
  if (p.parse(padded).get(doc) != simdjson::SUCCESS) return 0;
  if (doc["commit"].get(n) != simdjson::SUCCESS) return 0;
  return n;
}

void check_checkpoint(std::string_view bytes) {
  std::uint64_t const number = header_number(bytes);
  std::uint64_t const seed = floe_fuzz::fnv1a(bytes);
  auto const whole = read_checkpoint(bytes, number, 0, seed);
  if (!whole.ok) check(one_line(whole.message), "a checkpoint refused without a one-line message");
  check(read_checkpoint(bytes, number, 2, seed) == whole, "a checkpoint reads differently in other pieces");
  if (bytes.size() <= 2048) check(read_checkpoint(bytes, number, 1, seed) == whole, "a checkpoint reads differently a byte at a time");
  if (number != 0) check(!read_checkpoint(bytes, number - 1, 0, seed).ok, "a checkpoint accepted under another number");
  if (!whole.ok) return;

  check(whole.entries.size() == whole.announced, "an accepted checkpoint holds other than it announced");
  ledger::entry_set set;
  for (auto const& e : whole.entries) check(set.insert(e) != ledger::entry_set::npos, "an entry read twice");
  std::string const encoded = ledger::encode_checkpoint(number, set);
  auto const again = read_checkpoint(encoded, number, 0, seed);
  check(again.ok, "an accepted checkpoint re-encodes to one that is refused");
  check(again.entries == whole.entries, "an accepted checkpoint re-encodes to other entries");
  ledger::entry_set set2;
  for (auto const& e : again.entries) set2.insert(e);
  check(ledger::encode_checkpoint(number, set2) == encoded, "encode_checkpoint is not stable over a round trip");
}

void check_hint(std::string_view bytes, std::uint64_t n) {
  if (auto const h = ledger::decode_hint(bytes)) check(ledger::decode_hint(ledger::encode_hint(*h)) == h, "a hint's number does not round trip");
  check(ledger::decode_hint(ledger::encode_hint(n)) == n, "encode_hint does not read back");
}

// The number after the last '/' of a key.
std::optional<std::uint64_t> key_number(std::string const& key, std::string_view suffix) {
  auto const slash = key.rfind('/');
  return ledger::number_of(std::string_view(key).substr(slash == std::string::npos ? 0 : slash + 1), suffix);
}

void check_names(std::string_view bytes, std::uint64_t n) {
  for (std::string_view suffix : {std::string_view(".json"), std::string_view(".ndjson")}) {
    if (auto const m = ledger::number_of(bytes, suffix)) {
      std::string const key = suffix == ".json" ? ledger::commit_key("", *m) : ledger::checkpoint_key("", *m);
      check(key.ends_with(bytes), "number_of accepted a name the keys do not write");
    }
  }
  auto const p = ledger::normalize_prefix(bytes);
  if (!p) {
    check(p.error().code == floe::errc::invalid_argument, "a prefix refused with an unexpected code");
    check(one_line(p.error().diag.message), "a prefix refused without a one-line message");
    return;
  }
  check(p->empty() || p->back() == '/', "a normalised prefix neither empty nor ending in '/'");
  auto const q = ledger::normalize_prefix(*p);
  check(q.has_value() && *q == *p, "normalize_prefix is not idempotent");
  auto const ck = ledger::commit_key(*p, n);
  auto const cp = ledger::checkpoint_key(*p, n);
  check(ck.starts_with(ledger::log_folder(*p)) && cp.starts_with(ledger::checkpoint_folder(*p)),
        "a key outside its folder");
  check(key_number(ck, ".json") == n, "number_of does not read back commit_key");
  check(key_number(cp, ".ndjson") == n, "number_of does not read back checkpoint_key");
  check(!key_number(ck, ".ndjson") && !key_number(cp, ".json"), "a name read with the other suffix");
  check(!key_number(ledger::hint_key(*p), ".json"), "the hint's name read as a commit's");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
  std::string_view const bytes(reinterpret_cast<char const*>(data), size);
  std::uint64_t n = 0;
  if (size > 0) std::memcpy(&n, data, size < sizeof n ? size : sizeof n);

  check_commit(bytes);
  check_checkpoint(bytes);
  check_hint(bytes, n);
  check_names(bytes, n);
  return 0;
}
