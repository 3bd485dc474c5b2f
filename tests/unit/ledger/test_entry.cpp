// Entries: validation, identity, and the compact set a ledger keeps.
#include <floe/ledger/entry.hpp>
#include <floe/ledger/state.hpp>

#include <doctest/doctest.h>

#include <string>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace ledger_entry_test {

using floe::errc;
using namespace floe::ledger;

namespace {
entry E(std::string key, std::string etag = "e1", std::string version = "", std::uint64_t size = 1) {
  return entry{"b", std::move(key), std::move(etag), std::move(version), size};
}
}  // namespace

TEST_CASE("validate_entry names the field and the object") {
  CHECK(validate_entry(E("k")).has_value());
  CHECK(validate_entry(E("d\xc3\xa9j\xc3\xa0/\xe2\x98\x83 x+y%.parquet", "abc-2", "v.1")).has_value());
  auto reason = [](entry const& e) {
    auto r = validate_entry(e);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == floe::make_error_code(errc::invalid_argument));
    return r.error().diag.message;
  };
  CHECK(reason(entry{"", "k", "e", "", 0}).find("bucket") != std::string::npos);
  CHECK(reason(entry{"a/b", "k", "e", "", 0}).find("'/'") != std::string::npos);
  CHECK(reason(E("")).find("key") != std::string::npos);
  CHECK(reason(E(std::string(1025, 'k'))).find("1024") != std::string::npos);
  CHECK(reason(E("\xff")).find("not UTF-8") != std::string::npos);
  CHECK(reason(E("k", "")).find("no ETag") != std::string::npos);
  CHECK(reason(E("k", "\"e\"")).find("ETag") != std::string::npos);
  CHECK(reason(E("k", "e e")).find("ETag") != std::string::npos);
  CHECK(reason(E("k", "e", "v\n")).find("version") != std::string::npos);
  // The message names the object, printable.
  CHECK(reason(E("a\nb", "")).find("b/a?b (ETag ") != std::string::npos);
}

TEST_CASE("identity is bucket, key, ETag and version id; the size is not part of it") {
  CHECK(same_identity(E("k", "e", "", 1), E("k", "e", "", 2)));
  CHECK_FALSE(same_identity(E("k", "e"), E("k", "f")));
  CHECK_FALSE(same_identity(E("k", "e", "v1"), E("k", "e", "v2")));
  CHECK_FALSE(same_identity(E("k", "e", "v1"), E("k", "e")));
  CHECK_FALSE(same_identity(entry{"a", "k", "e", "", 1}, entry{"b", "k", "e", "", 1}));

  entry_set s;
  CHECK(s.insert(E("k", "e", "", 1)) == 0);
  CHECK(s.insert(E("k", "e", "", 2)) == entry_set::npos);  // same identity
  CHECK(s.insert(E("k", "f")) == 1);
  CHECK(s.insert(E("k", "e", "v")) == 2);
  CHECK(s.insert(entry{"c", "k", "e", "", 1}) == 3);
  CHECK(s.size() == 4);
  CHECK(s.contains(E("k", "e", "", 99)));
  CHECK_FALSE(s.contains(E("k", "e", "w")));
  CHECK_FALSE(s.contains(entry{"d", "k", "e", "", 1}));
  auto v = s.at(3);
  CHECK(v.bucket == "c");
  CHECK(v.key == "k");
  CHECK(v.size == 1);
  CHECK(s.at(2).version_id == "v");
  CHECK(s.at(0).size == 1);  // the first one inserted is kept
  CHECK(s.find(v) == 3);
}

TEST_CASE("entry_set: many entries, keys of every length, order kept, compact") {
  entry_set s;
  constexpr int n = 100000;
  for (int i = 0; i < n; ++i) {
    std::string key = "raw/2024/05/" + std::to_string(i) + "/part-" + std::string(static_cast<std::size_t>(i % 40), 'x') + ".parquet";
    REQUIRE(s.insert(entry{i % 3 == 0 ? "lake" : "other", key, "etag" + std::to_string(i), i % 7 == 0 ? "v" : "", 7}) ==
            static_cast<std::size_t>(i));
  }
  CHECK(s.size() == n);
  for (int i = 0; i < n; i += 997) {
    std::string key = "raw/2024/05/" + std::to_string(i) + "/part-" + std::string(static_cast<std::size_t>(i % 40), 'x') + ".parquet";
    entry e{i % 3 == 0 ? "lake" : "other", key, "etag" + std::to_string(i), i % 7 == 0 ? "v" : "", 0};
    CHECK(s.find(e) == static_cast<std::size_t>(i));
    CHECK(s.at(static_cast<std::size_t>(i)).key == key);
    e.etag += "x";
    CHECK_FALSE(s.contains(e));
  }
  // About 60 bytes of key and ETag per entry here: well under 160 bytes each in all.
  MESSAGE("entry_set: " << s.memory_bytes() / n << " bytes per entry");
  CHECK(s.memory_bytes() < static_cast<std::size_t>(n) * 160);
  s.clear();
  CHECK(s.empty());
  CHECK_FALSE(s.contains(E("k")));
  CHECK(s.insert(E("k")) == 0);
}

TEST_CASE("ledger_state applies commits and counts entries the log has twice") {
  ledger_state st;
  CHECK(st.next() == 0);
  commit g;
  st.apply(g);
  CHECK(st.next() == 1);
  commit c;
  c.number = 1;
  c.entries = {E("a"), E("b")};
  CHECK(st.apply(c) == 0);
  c.number = 2;
  c.entries = {E("b"), E("c")};
  CHECK(st.apply(c) == 1);
  CHECK(st.next() == 3);
  CHECK(st.entries().size() == 3);
  st.reset_to_checkpoint(10);
  CHECK(st.next() == 11);
  CHECK(st.entries().empty());
}

TEST_CASE("checkpoint_due: multiples of the interval, longer as the ledger doubles") {
  checkpoint_policy p;  // 100, 20,000
  CHECK_FALSE(checkpoint_due(0, 0, p));
  CHECK_FALSE(checkpoint_due(99, 10, p));
  CHECK(checkpoint_due(100, 10, p));
  CHECK(checkpoint_due(100, 39999, p));
  CHECK_FALSE(checkpoint_due(100, 40000, p));  // 40,000 entries: every 200
  CHECK(checkpoint_due(200, 40000, p));
  CHECK_FALSE(checkpoint_due(200, 80000, p));  // every 400
  CHECK(checkpoint_due(400, 100000, p));       // 100,000: every 400
  CHECK_FALSE(checkpoint_due(600, 100000, p));
  CHECK(checkpoint_due(800, 160000, p));
  p.interval = 0;
  CHECK_FALSE(checkpoint_due(100, 1, p));
  p.interval = 5;
  p.entries_unit = 0;  // treated as 1: the interval doubles with every doubling
  CHECK(checkpoint_due(5, 1, p));
  CHECK_FALSE(checkpoint_due(5, 2, p));
  CHECK(checkpoint_due(10, 2, p));
}

}  // namespace ledger_entry_test
