// The ledger's object names and formats: commits, checkpoints (read piece
// by piece), the hint.
#include <floe/ledger/format.hpp>

#include <doctest/doctest.h>

#include <initializer_list>
#include <string>
#include <vector>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace ledger_format_test {

using floe::errc;
using namespace floe::ledger;

namespace {

std::vector<entry> sample_entries() {
  return {entry{"lake", "raw/a.parquet", "0bbc18cdea1c4aaa17777d441214774a", "", 10},
          entry{"lake", "in/day 1/a+b%c \xc3\xa9\xe2\x98\x83.parquet", "ad75efb1f93d0873aa6555e8c351656d-2", "", 5242884},
          entry{"other", "q\"uote\\back\nline", "e", "3HL4kqtJlcpXroDTDmJ+rmSpXd3dIbrHY", 0}};
}

std::string reason_of_commit(std::string const& body) {
  auto r = decode_commit(body);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code == floe::make_error_code(errc::malformed_reply));
  return r.error().diag.message;
}

// Feeds `text` to a checkpoint reader in pieces of `step` bytes.
floe::result<void> read_checkpoint(std::string const& text, std::uint64_t n, std::size_t step, entry_set& into) {
  checkpoint_reader r(n, [&into](entry_view const& e) { return into.insert(e) != entry_set::npos; });
  for (std::size_t i = 0; i < text.size(); i += step) {
    auto f = r.feed(std::string_view(text).substr(i, step));
    if (!f) return f;
  }
  return r.finish();
}

}  // namespace

TEST_CASE("object names under the prefix") {
  CHECK(normalize_prefix("").value().empty());
  CHECK(normalize_prefix("ledgers/raw").value() == "ledgers/raw/");
  CHECK(normalize_prefix("/ledgers/raw/").value() == "ledgers/raw/");
  CHECK_FALSE(normalize_prefix("a//b").has_value());
  CHECK_FALSE(normalize_prefix("\xff").has_value());
  CHECK_FALSE(normalize_prefix(std::string(901, 'p')).has_value());
  // Found by fuzz_ledger: 900 bytes without the '/' became 901 with it,
  // which normalize_prefix then refused. The bound includes the '/'.
  CHECK_FALSE(normalize_prefix(std::string(900, 'p')).has_value());
  CHECK(normalize_prefix(std::string(899, 'p')).value().size() == 900);
  CHECK(normalize_prefix(std::string(899, 'p') + "/").value().size() == 900);
  for (std::string const& p : std::initializer_list<std::string>{std::string(899, 'p'), std::string(900, 'p') + "/", "/x/y"}) {
    auto const once = normalize_prefix(p);
    if (!once) continue;
    auto const twice = normalize_prefix(*once);
    REQUIRE(twice.has_value());
    CHECK(*twice == *once);
  }
  CHECK(commit_key("p/", 0) == "p/_log/00000000000000000000.json");
  CHECK(commit_key("p/", 12345) == "p/_log/00000000000000012345.json");
  CHECK(commit_key("", 18446744073709551615ull) == "_log/18446744073709551615.json");
  CHECK(checkpoint_key("p/", 100) == "p/_checkpoints/00000000000000000100.ndjson");
  CHECK(hint_key("p/") == "p/_last_checkpoint.json");
  CHECK(number_of("00000000000000000100.json", ".json") == 100u);
  CHECK(number_of("00000000000000000100.ndjson", ".ndjson") == 100u);
  CHECK_FALSE(number_of("0000000000000000100.json", ".json"));
  CHECK_FALSE(number_of("00000000000000000100.json.tmp", ".json"));
  CHECK_FALSE(number_of("0000000000000000010x.json", ".json"));
  CHECK_FALSE(number_of("99999999999999999999.json", ".json"));  // past 2^64
}

TEST_CASE("iso8601_utc") {
  CHECK(iso8601_utc(0) == "1970-01-01T00:00:00Z");
  CHECK(iso8601_utc(1735787045) == "2025-01-02T03:04:05Z");
}

TEST_CASE("a commit round-trips, escapes and unicode included") {
  commit c;
  c.number = 7;
  c.write_id = "abc123.7";
  c.writer = "host-1/pid 42 \xe2\x98\x83";
  c.time = "2025-01-02T03:04:05Z";
  c.entries = sample_entries();
  std::string const body = encode_commit(c);
  CHECK(body.rfind("{\"floe_ledger\":1,\"kind\":\"commit\",\"commit\":7,\"write_id\":\"abc123.7\"", 0) == 0);
  CHECK(body.find("[\"lake\",\"raw/a.parquet\",\"0bbc18cdea1c4aaa17777d441214774a\",10]") != std::string::npos);
  CHECK(body.find("\"3HL4kqtJlcpXroDTDmJ+rmSpXd3dIbrHY\"]") != std::string::npos);
  auto d = decode_commit(body);
  REQUIRE(d.has_value());
  CHECK(d->number == 7);
  CHECK(d->write_id == c.write_id);
  CHECK(d->writer == c.writer);
  CHECK(d->time == c.time);
  CHECK(d->entries == c.entries);
  CHECK(encode_commit(*d) == body);

  commit g;  // the genesis
  g.write_id = "g.0";
  auto gd = decode_commit(encode_commit(g));
  REQUIRE(gd.has_value());
  CHECK(gd->number == 0);
  CHECK(gd->entries.empty());
}

TEST_CASE("decode_commit refuses what is not a commit, saying why") {
  std::string const head = R"({"floe_ledger":1,"kind":"commit","commit":3,"write_id":"w","writer":"x","time":"t","entries":)";
  CHECK(decode_commit(head + "[]}").has_value());
  CHECK(decode_commit(head + R"([], "future_member": {"x": 1}})").has_value());  // unknown members are ignored
  CHECK(reason_of_commit("garbage").find("not JSON") != std::string::npos);
  CHECK(reason_of_commit("[]").find("not a JSON object") != std::string::npos);
  CHECK(reason_of_commit(R"({"kind":"commit"})").find("floe_ledger") != std::string::npos);
  CHECK(reason_of_commit(R"({"floe_ledger":3,"kind":"commit"})").find("version 3") != std::string::npos);
  CHECK(reason_of_commit(R"({"floe_ledger":1,"kind":"checkpoint"})").find("kind") != std::string::npos);
  CHECK(reason_of_commit(R"({"floe_ledger":1,"kind":"commit","commit":-1})").find("commit number") != std::string::npos);
  CHECK(reason_of_commit(R"({"floe_ledger":1,"kind":"commit","commit":1,"write_id":""})").find("write_id") !=
        std::string::npos);
  CHECK(reason_of_commit(head + "{}}").find("entries") != std::string::npos);
  CHECK(reason_of_commit(head + R"([["b","k","e"]]})").find("3 members") != std::string::npos);
  CHECK(reason_of_commit(head + R"([["b","k","e",-1]]})").find("size") != std::string::npos);
  CHECK(reason_of_commit(head + R"([["b","k","e",1,""]]})").find("version id is empty") != std::string::npos);
  CHECK(reason_of_commit(head + R"([["b","k",5,1]]})").find("not a string") != std::string::npos);
  CHECK(reason_of_commit(head + R"([["b","k","",1]]})").find("no ETag") != std::string::npos);
  CHECK(reason_of_commit(head + R"([["b","k","e",1],7]})").find("entry 1: an entry is not an array") != std::string::npos);
  CHECK(reason_of_commit(R"({"floe_ledger":1,"kind":"commit","commit":0,"write_id":"w","writer":"","time":"t","entries":[["b","k","e",1]]})")
            .find("genesis") != std::string::npos);
  auto big = decode_commit(std::string(max_commit_bytes + 1, ' '));
  REQUIRE_FALSE(big.has_value());
  CHECK(big.error().code == floe::make_error_code(errc::reply_too_large));
}

TEST_CASE("a checkpoint round-trips whatever the pieces it arrives in") {
  entry_set s;
  for (auto const& e : sample_entries()) s.insert(e);
  for (int i = 0; i < 200; ++i) s.insert(entry{"lake", "k/" + std::to_string(i), "e" + std::to_string(i), i % 2 ? "v" : "", 1});
  std::string const text = encode_checkpoint(100, s);
  CHECK(text.rfind("{\"floe_ledger\":1,\"kind\":\"checkpoint\",\"commit\":100,\"entries\":203}\n", 0) == 0);
  CHECK(text.back() == '\n');
  for (std::size_t step : {std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{64}, std::size_t{4096}, text.size()}) {
    CAPTURE(step);
    entry_set got;
    auto r = read_checkpoint(text, 100, step, got);
    REQUIRE_MESSAGE(r.has_value(), (r ? std::string() : r.error().what()));
    REQUIRE(got.size() == s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
      auto const a = s.at(i), b = got.at(i);
      CHECK(a.bucket == b.bucket);
      CHECK(a.key == b.key);
      CHECK(a.etag == b.etag);
      CHECK(a.version_id == b.version_id);
      CHECK(a.size == b.size);
    }
  }
  entry_set empty;
  entry_set got;
  CHECK(read_checkpoint(encode_checkpoint(5, empty), 5, 3, got).has_value());
  CHECK(got.empty());
}

TEST_CASE("a checkpoint that is wrong is refused, saying where") {
  entry_set s;
  for (auto const& e : sample_entries()) s.insert(e);
  std::string const good = encode_checkpoint(100, s);
  auto reason = [](std::string const& text, std::uint64_t n = 100) {
    entry_set got;
    auto r = read_checkpoint(text, n, 5, got);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == floe::make_error_code(errc::malformed_reply));
    return r.error().diag.message;
  };
  CHECK(reason(good, 200).find("says it covers commit 100") != std::string::npos);
  CHECK(reason(good.substr(0, good.size() - 1)).find("cut short") != std::string::npos);
  CHECK(reason(good.substr(0, good.rfind('\n', good.size() - 2) + 1)).find("announces 3 entries but holds 2") !=
        std::string::npos);
  auto first_entry_line = good.substr(good.find('\n') + 1, good.find('\n', good.find('\n') + 1) - good.find('\n'));
  CHECK(reason(good + first_entry_line).find("more entries than the 3 announced") != std::string::npos);
  std::string dup = good;
  dup.replace(dup.find("3}"), 2, "4}");
  dup += first_entry_line;
  CHECK(reason(dup).find("appears twice") != std::string::npos);
  CHECK(reason("").find("empty") != std::string::npos);
  CHECK(reason("\n").find("an empty line") != std::string::npos);
  CHECK(reason("{\"floe_ledger\":1,\"kind\":\"commit\",\"commit\":100,\"entries\":0}\n").find("kind") != std::string::npos);
  CHECK(reason("{\"floe_ledger\":1,\"kind\":\"checkpoint\",\"commit\":100}\n").find("entry count") != std::string::npos);
  CHECK(reason(good.substr(0, good.find('\n') + 1) + "[\"b\",\"k\"]\n").find("line 2") != std::string::npos);
  CHECK(reason(good.substr(0, good.find('\n') + 1) + std::string(9000, 'x')).find("longer than 8192") != std::string::npos);
  // Once failed, a reader stays failed.
  checkpoint_reader r(1, [](entry_view const&) { return true; });
  CHECK_FALSE(r.feed("nonsense\n").has_value());
  CHECK_FALSE(r.feed(good).has_value());
  CHECK_FALSE(r.finish().has_value());
}

TEST_CASE("the hint: advice, so anything unreadable is no hint") {
  CHECK(encode_hint(100) == R"({"floe_ledger":1,"kind":"hint","checkpoint":100})");
  CHECK(decode_hint(encode_hint(100)) == 100u);
  CHECK_FALSE(decode_hint(""));
  CHECK_FALSE(decode_hint("{}"));
  CHECK_FALSE(decode_hint(R"({"floe_ledger":1,"kind":"hint","checkpoint":"100"})"));
  CHECK_FALSE(decode_hint(R"({"floe_ledger":1,"kind":"commit","checkpoint":100})"));
  CHECK_FALSE(decode_hint(std::string(5000, ' ')));
}

}  // namespace ledger_format_test
