// Format 2 (sequencers, checksums, removals), the rules that decide what a
// registration or a removal does (state.hpp), the commit machine judging a
// batch by them, and the verifier's "no live entry twice".
#include "machine_support.hpp"

#include <floe/ledger/sequencer.hpp>
#include <floe/ledger/verify.hpp>

#include <doctest/doctest.h>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace ledger_removals_test {

using namespace ledger_test;
using floe::checksum::algorithm;

namespace {

entry R(std::string key, std::string etag, std::string seq, std::string version = "") {
  entry e{"lake", std::move(key), std::move(etag), std::move(version), 5};
  e.sequencer = std::move(seq);
  return e;
}
entry X(std::string key, std::string seq, std::string version = "") {
  entry e{"lake", std::move(key), "", std::move(version), 0};
  e.sequencer = std::move(seq);
  e.removal = true;
  return e;
}
verdict put(ledger_state& st, entry const& e) { return apply_record(st.mutable_entries(), view_of(e)); }

}  // namespace

TEST_CASE("sequencers compare as S3 says: the shorter right-padded with zeros") {
  CHECK(compare_sequencers("0055AED6DCD90281E5", "0055AED6DCD90281E6") < 0);
  CHECK(compare_sequencers("0055AED6DCD9028200", "0055AED6DCD90281E5") > 0);
  CHECK(compare_sequencers("0055AED6DCD90282", "0055AED6DCD9028200") == 0);  // padded: equal
  CHECK(compare_sequencers("0055AED6DCD90282", "0055AED6DCD90281FF") > 0);
  CHECK(compare_sequencers("1", "0FFFFFFFFFFFFFFFFF") > 0);  // not as numbers
  CHECK(normalize_sequencer("00abCD").value() == "00ABCD");
  CHECK_FALSE(normalize_sequencer("").has_value());
  CHECK_FALSE(normalize_sequencer("00G1").has_value());
  CHECK_FALSE(normalize_sequencer(std::string(65, '0')).has_value());
}

TEST_CASE("validate_entry: removals, sequencers and checksums") {
  CHECK(validate_entry(X("k", "0A")).has_value());
  auto bad = X("k", "0A");
  bad.etag = "e";
  CHECK(validate_entry(bad).error().diag.message.find("removal with an ETag") != std::string::npos);
  CHECK(validate_entry(R("k", "e", "0a")).error().diag.message.find("upper-case hex") != std::string::npos);
  auto ck = R("k", "e", "");
  ck.checksum = "AAAAAA==";
  CHECK(validate_entry(ck).error().diag.message.find("without its algorithm") != std::string::npos);
  ck.checksum_algorithm = algorithm::crc32c;
  CHECK(validate_entry(ck).has_value());
}

TEST_CASE("format 2 round-trips; format 1 is written when nothing needs 2") {
  commit c;
  c.number = 4;
  c.write_id = "w.4";
  c.writer = "me";
  c.time = "2025-01-02T03:04:05Z";
  c.entries = {E("plain"), R("seq", "e1", "0055AED6DCD90281E5", "v.1"), X("gone", "0055AED6DCD9028200"),
               X("gone-version", "0056", "v.2")};
  c.entries[1].checksum_algorithm = algorithm::sha256;
  c.entries[1].checksum = "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=";
  auto const body = encode_commit(c);
  CHECK(body.find(R"("floe_ledger":2)") != std::string::npos);
  CHECK(body.find(R"({"removal":["lake","gone"],"sequencer":"0055AED6DCD9028200"})") != std::string::npos);
  CHECK(body.find(R"("checksum":{"algorithm":"SHA256","value":"47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="})") !=
        std::string::npos);
  auto back = decode_commit(body);
  REQUIRE(back.has_value());
  CHECK(back->entries == c.entries);

  c.entries = {E("a"), entry{"lake", "b", "e", "v9", 1}};
  auto const v1 = encode_commit(c);
  CHECK(v1.find(R"("floe_ledger":1)") != std::string::npos);
  CHECK(v1.find(R"(["lake","b","e",1,"v9"])") != std::string::npos);
  CHECK(decode_commit(v1)->entries == c.entries);
}

TEST_CASE("an old (format 1) commit still reads; format 1 refuses format 2's forms") {
  std::string const old =
      R"({"floe_ledger":1,"kind":"commit","commit":7,"write_id":"k3x9.7","writer":"w","time":"2025-01-02T03:04:05Z",)"
      R"("entries":[["lake","raw/a.parquet","0bbc18cdea1c4aaa17777d441214774a",10],)"
      R"(["lake","raw/b.parquet","ad75efb1f93d0873aa6555e8c351656d-2",5242884,"3HL4kqtJlcpXroDTDmJ.rmSpXd3dIbrHY"]]})";
  auto c = decode_commit(old);
  REQUIRE(c.has_value());
  CHECK(c->entries.size() == 2);
  CHECK(c->entries[1].version_id == "3HL4kqtJlcpXroDTDmJ.rmSpXd3dIbrHY");
  CHECK(c->entries[1].sequencer.empty());
  std::string const head = R"({"floe_ledger":1,"kind":"commit","commit":1,"write_id":"a.1","writer":"","time":"t","entries":)";
  auto r = decode_commit(head + R"([{"removal":["lake","k"],"sequencer":"01"}]})");
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().diag.message.find("not an array") != std::string::npos);
  std::string const head2 = R"({"floe_ledger":2,"kind":"commit","commit":1,"write_id":"a.1","writer":"","time":"t","entries":)";
  CHECK(decode_commit(head2 + R"([{"removal":["lake"]}]})").error().diag.message.find("removal") != std::string::npos);
  CHECK(decode_commit(head2 + R"([["lake","k","e",1,{"checksum":{"algorithm":"MD5","value":"x"}}]]})")
            .error().diag.message.find("checksum") != std::string::npos);
  CHECK(decode_commit(head2 + R"([["lake","k","e",1,{"sequencer":"xyz"}]]})").error().diag.message.find("sequencer") !=
        std::string::npos);
}

TEST_CASE("per key, the newest sequencer decides; a stale event changes nothing") {
  ledger_state st = loaded_state();
  CHECK(put(st, R("k", "e1", "0010")) == verdict::add);
  CHECK(put(st, R("k", "e0", "000F")) == verdict::stale);        // an older overwrite arriving late
  CHECK(put(st, R("k", "e1", "0020")) == verdict::already);      // the same bytes: already
  CHECK(put(st, X("k", "0008")) == verdict::stale);              // a removal older than the registration
  CHECK(st.entries().contains(R("k", "e1", "")));
  CHECK(put(st, X("k", "0030")) == verdict::add);                // removed
  CHECK_FALSE(st.entries().contains(R("k", "e1", "")));
  CHECK(st.entries().live() == 0);
  CHECK(put(st, R("k", "e1", "0025")) == verdict::stale);        // a creation older than the removal
  CHECK(put(st, X("k", "0030")) == verdict::stale);              // the same removal again
  CHECK(put(st, R("k", "e1", "0040")) == verdict::add);          // created again with the same bytes
  CHECK(st.entries().contains(R("k", "e1", "")));
  CHECK(st.entries().live() == 1);
  // Other keys are not ordered by this key's sequencers.
  CHECK(put(st, R("other", "e", "0001")) == verdict::add);
}

TEST_CASE("entries made without an event: a creation of the same ETag is already; a removal applies") {
  ledger_state st = loaded_state();
  CHECK(put(st, R("k", "e1", "")) == verdict::add);              // ledger add, or reconcile
  CHECK(put(st, R("k", "e1", "0010")) == verdict::already);
  CHECK(put(st, X("k", "0005")) == verdict::add);                // any removal event applies to it
  CHECK(st.entries().live() == 0);
  CHECK(put(st, R("k", "e1", "")) == verdict::add);              // registered again without an event
  CHECK(put(st, X("k", "0004")) == verdict::stale);              // older than the removal the ledger holds
}

TEST_CASE("versions: each version is its own; a removal of one version leaves the others") {
  ledger_state st = loaded_state();
  CHECK(put(st, R("k", "e1", "0010", "v1")) == verdict::add);
  CHECK(put(st, R("k", "e2", "0020", "v2")) == verdict::add);
  CHECK(put(st, X("k", "0030", "v1")) == verdict::add);
  CHECK_FALSE(st.entries().contains(R("k", "e1", "", "v1")));
  CHECK(st.entries().contains(R("k", "e2", "", "v2")));
  // A late event of a third version older than v1's removal is still its own.
  CHECK(put(st, R("k", "e3", "0025", "v3")) == verdict::add);
  // A removal without a version (a delete marker) removes every version.
  CHECK(put(st, X("k", "0040")) == verdict::add);
  CHECK(st.entries().live() == 0);
}

TEST_CASE("the commit machine judges a batch by the rules, the batch's own records included") {
  ledger_state st = loaded_state();
  put(st, R("k", "e1", "0010"));
  put(st, R("gone", "g", "0050"));
  commit_config cfg;
  std::vector<entry> batch{R("k", "e1", "0011"),  X("k", "0020"), R("k", "e1", "0030"), R("k", "e1", "0031"),
                           R("k", "e0", "0015"),  X("gone", "0040"), R("new", "n", "0001")};
  commit_machine m(st, batch, "me", "b", "t", cfg, t0);
  REQUIRE(m.start() == step::write);
  auto const c = decode_commit(m.body());
  REQUIRE(c.has_value());
  CHECK(c->entries == std::vector<entry>{X("k", "0020"), R("k", "e1", "0030"), R("new", "n", "0001")});
  REQUIRE(m.on_write(written(), t0, 0.5) == step::done);
  auto& o = *m.outcome();
  CHECK(o.already == std::vector<entry>{R("k", "e1", "0011"), R("k", "e1", "0031")});
  CHECK(o.stale == std::vector<entry>{R("k", "e0", "0015"), X("gone", "0040")});
  CHECK(st.entries().contains(R("k", "e1", "")));
  CHECK(st.entries().live() == 3);  // k (created again), gone, new
}

TEST_CASE("a removal another writer committed first is learnt, and the batch judged again") {
  ledger_state st = loaded_state();
  put(st, R("k", "e1", "0010"));
  commit_config cfg;
  commit_machine m(st, {X("k", "0020"), R("k", "e0", "0018")}, "me", "b", "t", cfg, t0);
  REQUIRE(m.start() == step::write);
  REQUIRE(m.on_write(failed_412(), t0, 0.5) == step::read);
  REQUIRE(m.on_read(found(other_commit(1, {X("k", "0030")})), t0, 0.5) == step::done);
  auto& o = *m.outcome();
  CHECK_FALSE(o.wrote);
  CHECK(o.stale.size() == 2);
}

TEST_CASE("checkpoints fold removals and read back to the same state") {
  ledger_state st = loaded_state();
  put(st, R("a", "e1", "0010"));
  put(st, X("a", "0020"));
  put(st, R("b", "e2", ""));
  auto withsum = R("c", "e3", "0001", "v");
  withsum.checksum_algorithm = algorithm::crc64nvme;
  withsum.checksum = "AAAAAAAAAAA=";
  put(st, withsum);
  auto const text = encode_checkpoint(9, st.entries());
  CHECK(text.rfind(R"({"floe_ledger":2,"kind":"checkpoint","commit":9,"entries":3})" "\n", 0) == 0);
  CHECK(text.find(R"("a","e1")") == std::string::npos);  // the removed registration is folded away
  entry_set got;
  checkpoint_reader r(9, [&got](entry_view const& e) { return got.insert(e) != entry_set::npos; });
  REQUIRE(r.feed(text).has_value());
  REQUIRE(r.finish().has_value());
  CHECK(got.live() == 2);
  CHECK(got.contains(withsum));
  CHECK(got.at(got.find(withsum)).checksum == "AAAAAAAAAAA=");
  // The removal's sequencer still guards the key.
  CHECK(judge(got, nullptr, view_of(R("a", "e1", "0015"))) == verdict::stale);
  CHECK(judge(got, nullptr, view_of(R("a", "e1", "0021"))) == verdict::add);
}

TEST_CASE("verify: an entry registered again after its removal is fine; live twice is a defect") {
  std::string const P = "p/";
  auto run = [&](std::vector<std::string> const& log, std::optional<std::string> cp = std::nullopt) {
    log_verifier v(P);
    std::vector<std::string> keys;
    for (std::size_t i = 0; i < log.size(); ++i) keys.push_back(commit_key(P, i));
    v.listed(keys, cp ? std::vector<std::string>{checkpoint_key(P, log.size() - 1)} : std::vector<std::string>{});
    for (std::size_t n = 0; n < log.size(); ++n)
      if (!v.add_commit(n, log[n])) break;
    if (cp && !v.failed()) {
      auto& reader = v.begin_checkpoint(log.size() - 1);
      auto r = reader.feed(*cp);
      if (r) r = reader.finish();
      v.end_checkpoint(r);
    }
    v.end_of_log(log.size());
    return v.finish();
  };
  std::vector<std::string> log{other_commit(0, {}, "g.0"), other_commit(1, {R("k", "e", "0010")}, "w.1"),
                               other_commit(2, {X("k", "0020")}, "w.2"), other_commit(3, {R("k", "e", "0030")}, "w.3")};
  auto ok = run(log);
  CHECK(ok.ok());
  CHECK(ok.entries == 1);
  ledger_state st;
  for (auto const& b : log) st.apply(*decode_commit(b));
  CHECK(run(log, encode_checkpoint(3, st.entries())).ok());
  // A checkpoint that lost the removal disagrees.
  entry_set lost;
  lost.insert(R("k", "e", "0030"));
  auto bad = run(log, encode_checkpoint(3, lost));
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.first_defect->kind == defect_kind::checkpoint_disagrees);
  log.push_back(other_commit(4, {R("k", "e", "0040")}, "w.4"));
  auto twice = run(log);
  REQUIRE_FALSE(twice.ok());
  CHECK(twice.first_defect->kind == defect_kind::entry_twice);
  CHECK(twice.first_defect->message.find("registered by commit 3 and not removed since") != std::string::npos);
}

}  // namespace ledger_removals_test
