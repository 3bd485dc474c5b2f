// commit_machine, one outcome at a time: what each reply to a commit write,
// and each read-back, leads to.
#include "machine_support.hpp"

#include <doctest/doctest.h>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace ledger_commit_machine_test {

using namespace ledger_test;
using floe::errc;

namespace {

struct run {
  ledger_state st = loaded_state(2);  // commits 0..2 known: the next is 3
  commit_config cfg;
  std::optional<commit_machine> m;
  clk::time_point now = t0;

  explicit run(std::vector<entry> batch, bool genesis = false) {
    if (genesis) st = ledger_state{};
    cfg.backoff_base = std::chrono::milliseconds(10);
    m.emplace(st, std::move(batch), "me", "base", "2025-01-02T03:04:05Z", cfg, t0, genesis);
  }
  commit_result& ok() {
    auto& o = m->outcome();
    REQUIRE_MESSAGE(o.has_value(), (o ? std::string() : o.error().what()));
    return *o;
  }
  floe::error failed() {
    REQUIRE_FALSE(m->outcome().has_value());
    return m->outcome().error();
  }
};

}  // namespace

TEST_CASE("written: ours, at the next number") {
  run r({E("a"), E("b")});
  REQUIRE(r.m->start() == step::write);
  CHECK(r.m->number() == 3);
  auto c = decode_commit(r.m->body());
  REQUIRE(c.has_value());
  CHECK(c->number == 3);
  CHECK(c->write_id == "base.3");
  CHECK(c->writer == "me");
  CHECK(c->time == "2025-01-02T03:04:05Z");
  CHECK(c->entries == std::vector<entry>{E("a"), E("b")});
  REQUIRE(r.m->on_write(written(), t0, 0.5) == step::done);
  auto& o = r.ok();
  CHECK(o.wrote);
  CHECK(o.number == 3);
  CHECK(o.write_id == "base.3");
  CHECK(o.committed == std::vector<entry>{E("a"), E("b")});
  CHECK(o.already.empty());
  CHECK(o.writes == 1);
  CHECK(o.reads == 0);
  CHECK_FALSE(o.confirmed_by_read);
  CHECK(r.st.next() == 4);
  CHECK(r.st.entries().contains(E("a")));
}

TEST_CASE("412, another writer's commit: its entries are dropped, the rest goes to the next number") {
  run r({E("a"), E("b"), E("c")});
  REQUIRE(r.m->start() == step::write);
  REQUIRE(r.m->on_write(failed_412(), t0, 0.5) == step::read);
  REQUIRE(r.m->on_read(found(other_commit(3, {E("b"), E("x")})), t0, 0.5) == step::write);
  CHECK(r.m->number() == 4);
  auto c = decode_commit(r.m->body());
  REQUIRE(c.has_value());
  CHECK(c->write_id == "base.4");
  CHECK(c->entries == std::vector<entry>{E("a"), E("c")});
  CHECK(r.st.entries().contains(E("x")));  // learnt
  REQUIRE(r.m->on_write(written(), t0, 0.5) == step::done);
  auto& o = r.ok();
  CHECK(o.number == 4);
  CHECK(o.committed == std::vector<entry>{E("a"), E("c")});
  CHECK(o.already == std::vector<entry>{E("b")});
  CHECK(o.lost_races == 1);
  CHECK(r.st.next() == 5);
  CHECK(r.st.entries().size() == 2 + 4);
}

TEST_CASE("another writer registered the whole batch: done, nothing written") {
  run r({E("a"), E("b")});
  REQUIRE(r.m->start() == step::write);
  REQUIRE(r.m->on_write(failed_412(), t0, 0.5) == step::read);
  REQUIRE(r.m->on_read(found(other_commit(3, {E("a")})), t0, 0.5) == step::write);
  REQUIRE(r.m->on_write(failed_412(), t0, 0.5) == step::read);
  REQUIRE(r.m->on_read(found(other_commit(4, {E("b"), E("z")})), t0, 0.5) == step::done);
  auto& o = r.ok();
  CHECK_FALSE(o.wrote);
  CHECK(o.committed.empty());
  CHECK(o.already == std::vector<entry>{E("a"), E("b")});
  CHECK(o.lost_races == 2);
  CHECK(r.st.next() == 5);
}

TEST_CASE("409 of any code: back off, then read the number") {
  SUBCASE("absent: the same number again") {
    run r({E("a")});
    REQUIRE(r.m->start() == step::write);
    std::string const body = r.m->body();
    REQUIRE(r.m->on_write(conflict_409(), t0, 1.0) == step::sleep);
    CHECK(r.m->sleep() == std::chrono::milliseconds(10));
    REQUIRE(r.m->on_slept(t0) == step::read);
    REQUIRE(r.m->on_read(absent(), t0, 0.5) == step::write);
    CHECK(r.m->number() == 3);
    CHECK(r.m->body() == body);
    REQUIRE(r.m->on_write(conflict_409(), t0, 1.0) == step::sleep);
    CHECK(r.m->sleep() == std::chrono::milliseconds(20));  // grows
    REQUIRE(r.m->on_slept(t0) == step::read);
    REQUIRE(r.m->on_read(absent(), t0, 0.5) == step::write);
    REQUIRE(r.m->on_write(written(), t0, 0.5) == step::done);
    CHECK(r.ok().conflicts == 2);
    CHECK(r.ok().writes == 3);
    CHECK(r.ok().number == 3);
  }
  SUBCASE("taken: the next number") {
    run r({E("a")});
    r.m->start();
    REQUIRE(r.m->on_write(conflict_409(), t0, 0.0) == step::sleep);
    REQUIRE(r.m->on_slept(t0) == step::read);
    REQUIRE(r.m->on_read(found(other_commit(3, {E("q")})), t0, 0.5) == step::write);
    CHECK(r.m->number() == 4);
    REQUIRE(r.m->on_write(written(), t0, 0.5) == step::done);
    CHECK(r.ok().number == 4);
  }
}

TEST_CASE("5xx and lost replies: read back; our write id means ours") {
  for (auto reply : {unknown_500(), lost()}) {
    run r({E("a")});
    r.m->start();
    std::string const body = r.m->body();
    REQUIRE(r.m->on_write(reply, t0, 0.5) == step::read);
    REQUIRE(r.m->on_read(found(body), t0, 0.5) == step::done);
    auto& o = r.ok();
    CHECK(o.wrote);
    CHECK(o.confirmed_by_read);
    CHECK(o.unknown == 1);
    CHECK(o.number == 3);
    CHECK(r.st.entries().contains(E("a")));
  }
}

TEST_CASE("5xx, absent: the same number, body and write id again; a delayed attempt winning is ours too") {
  run r({E("a")});
  r.m->start();
  std::string const body = r.m->body();
  REQUIRE(r.m->on_write(unknown_500(), t0, 0.5) == step::read);
  REQUIRE(r.m->on_read(absent(), t0, 0.5) == step::write);
  CHECK(r.m->body() == body);
  CHECK(r.m->number() == 3);
  // The first attempt lands late and takes the number: the second gets 412.
  REQUIRE(r.m->on_write(failed_412(), t0, 0.5) == step::read);
  REQUIRE(r.m->on_read(found(body), t0, 0.5) == step::done);
  CHECK(r.ok().confirmed_by_read);
  CHECK(r.ok().writes == 2);
  CHECK(r.ok().number == 3);
}

TEST_CASE("5xx, then another writer's commit at that number: ours did not land there") {
  run r({E("a")});
  r.m->start();
  REQUIRE(r.m->on_write(unknown_500(), t0, 0.5) == step::read);
  REQUIRE(r.m->on_read(found(other_commit(3, {E("z")})), t0, 0.5) == step::write);
  CHECK(r.m->number() == 4);
  // A plain error now is the error: nothing of ours can land at 3 or 4.
  REQUIRE(r.m->on_write(floe::error(errc::denied, "AccessDenied"), t0, 0.5) == step::done);
  CHECK(r.failed().code == floe::make_error_code(errc::denied));
  CHECK(r.failed().diag.message.find("commit 4") != std::string::npos);
}

TEST_CASE("a failed read is read again after a back-off") {
  run r({E("a")});
  r.m->start();
  std::string const body = r.m->body();
  REQUIRE(r.m->on_write(lost(), t0, 0.5) == step::read);
  REQUIRE(r.m->on_read(read_failed(), t0, 1.0) == step::sleep);
  CHECK(r.m->sleep() == std::chrono::milliseconds(10));
  REQUIRE(r.m->on_slept(t0) == step::read);
  REQUIRE(r.m->on_read(read_failed(), t0, 1.0) == step::sleep);
  CHECK(r.m->sleep() == std::chrono::milliseconds(20));
  REQUIRE(r.m->on_slept(t0) == step::read);
  REQUIRE(r.m->on_read(found(body), t0, 0.5) == step::done);
  CHECK(r.ok().reads == 3);
}

TEST_CASE("giving up while an attempt may land is unknown_outcome, never 'not committed'") {
  SUBCASE("reads keep failing") {
    run r({E("a")});
    r.cfg.max_failed_reads = 2;
    r.m->start();
    REQUIRE(r.m->on_write(unknown_500(), t0, 0.5) == step::read);
    REQUIRE(r.m->on_read(read_failed(), t0, 0.0) == step::sleep);
    REQUIRE(r.m->on_slept(t0) == step::read);
    REQUIRE(r.m->on_read(read_failed(), t0, 0.0) == step::sleep);
    REQUIRE(r.m->on_slept(t0) == step::read);
    REQUIRE(r.m->on_read(read_failed(), t0, 0.0) == step::done);
    CHECK(r.failed().code == floe::make_error_code(errc::unknown_outcome));
    CHECK(r.failed().diag.message.find("base.3") != std::string::npos);
    CHECK(r.st.next() == 3);  // nothing learnt, nothing assumed
  }
  SUBCASE("reads keep failing after a 412: the read's error, nothing of ours landed") {
    run r({E("a")});
    r.cfg.max_failed_reads = 1;
    r.m->start();
    REQUIRE(r.m->on_write(failed_412(), t0, 0.5) == step::read);
    REQUIRE(r.m->on_read(read_failed(), t0, 0.0) == step::sleep);
    REQUIRE(r.m->on_slept(t0) == step::read);
    REQUIRE(r.m->on_read(read_failed(), t0, 0.0) == step::done);
    CHECK(r.failed().code == floe::make_error_code(errc::transient));
    CHECK(r.failed().diag.message.find("nothing of this batch was committed") != std::string::npos);
  }
  SUBCASE("a write error after an ambiguous attempt at the same number") {
    run r({E("a")});
    r.m->start();
    REQUIRE(r.m->on_write(lost(), t0, 0.5) == step::read);
    REQUIRE(r.m->on_read(absent(), t0, 0.5) == step::write);
    REQUIRE(r.m->on_write(floe::error(errc::denied, "AccessDenied"), t0, 0.5) == step::done);
    CHECK(r.failed().code == floe::make_error_code(errc::unknown_outcome));
  }
  SUBCASE("the deadline passes") {
    run r({E("a")});
    r.cfg.deadline = std::chrono::milliseconds(100);
    r.m->start();
    REQUIRE(r.m->on_write(unknown_500(), t0, 0.5) == step::read);
    REQUIRE(r.m->on_read(absent(), t0 + std::chrono::milliseconds(150), 0.5) == step::done);
    CHECK(r.failed().code == floe::make_error_code(errc::unknown_outcome));
  }
}

TEST_CASE("bounds without ambiguity: attempts_exhausted and timeout, nothing committed") {
  SUBCASE("write attempts") {
    run r({E("a")});
    r.cfg.max_writes = 3;
    r.m->start();
    for (int i = 0; i < 2; ++i) {
      REQUIRE(r.m->on_write(conflict_409(), t0, 0.0) == step::sleep);
      REQUIRE(r.m->on_slept(t0) == step::read);
      REQUIRE(r.m->on_read(absent(), t0, 0.0) == step::write);
    }
    REQUIRE(r.m->on_write(conflict_409(), t0, 0.0) == step::sleep);
    REQUIRE(r.m->on_slept(t0) == step::read);
    REQUIRE(r.m->on_read(absent(), t0, 0.0) == step::done);
    CHECK(r.failed().code == floe::make_error_code(errc::attempts_exhausted));
    CHECK(r.failed().diag.attempt == 3);
  }
  SUBCASE("deadline during a back-off") {
    run r({E("a")});
    r.cfg.deadline = std::chrono::milliseconds(15);
    r.m->start();
    REQUIRE(r.m->on_write(conflict_409(), t0 + std::chrono::milliseconds(10), 1.0) == step::done);
    CHECK(r.failed().code == floe::make_error_code(errc::timeout));
  }
}

TEST_CASE("the batch: entries already registered, and entries given twice") {
  run r({E("old1"), E("a"), E("a"), E("b"), E("old2")});
  REQUIRE(r.m->start() == step::write);
  REQUIRE(r.m->on_write(written(), t0, 0.5) == step::done);
  auto& o = r.ok();
  CHECK(o.committed == std::vector<entry>{E("a"), E("b")});
  CHECK(o.already.size() == 3);
  CHECK(o.writes == 1);
}

TEST_CASE("nothing new: done at once, nothing written") {
  run r({E("old1"), E("old2")});
  REQUIRE(r.m->start() == step::done);
  CHECK_FALSE(r.ok().wrote);
  CHECK(r.ok().writes == 0);
  CHECK(r.ok().already.size() == 2);
  run empty({});
  REQUIRE(empty.m->start() == step::done);
  CHECK_FALSE(empty.ok().wrote);
}

TEST_CASE("what the ledger cannot go past: a commit that does not parse, or is not what it says") {
  SUBCASE("garbage at the number") {
    run r({E("a")});
    r.m->start();
    r.m->on_write(failed_412(), t0, 0.5);
    REQUIRE(r.m->on_read(found("{not json"), t0, 0.5) == step::done);
    CHECK(r.failed().code == floe::make_error_code(errc::malformed_reply));
    CHECK(r.failed().diag.message.find("commit 3 is not a floe ledger commit") != std::string::npos);
  }
  SUBCASE("a commit naming another number") {
    run r({E("a")});
    r.m->start();
    r.m->on_write(failed_412(), t0, 0.5);
    REQUIRE(r.m->on_read(found(other_commit(9, {E("z")})), t0, 0.5) == step::done);
    CHECK(r.failed().diag.message.find("says it is commit 9") != std::string::npos);
  }
  SUBCASE("our write id with other bytes") {
    run r({E("a")});
    r.m->start();
    r.m->on_write(unknown_500(), t0, 0.5);
    REQUIRE(r.m->on_read(found(other_commit(3, {E("z")}, "base.3")), t0, 0.5) == step::done);
    CHECK(r.failed().diag.message.find("write id but not its bytes") != std::string::npos);
    CHECK(r.st.next() == 3);
  }
}

TEST_CASE("a state without the genesis is refused") {
  ledger_state st;
  commit_config cfg;
  commit_machine m(st, {E("a")}, "me", "base", "t", cfg, t0);
  REQUIRE(m.start() == step::done);
  REQUIRE_FALSE(m.outcome().has_value());
  CHECK(m.outcome().error().code == floe::make_error_code(errc::invalid_argument));
}

TEST_CASE("genesis mode: commit 0, whoever makes it") {
  SUBCASE("created") {
    run r({}, true);
    REQUIRE(r.m->start() == step::write);
    CHECK(r.m->number() == 0);
    REQUIRE(r.m->on_write(written(), t0, 0.5) == step::done);
    CHECK(r.ok().created);
    CHECK(r.st.next() == 1);
  }
  SUBCASE("another process made it") {
    run r({}, true);
    r.m->start();
    REQUIRE(r.m->on_write(failed_412(), t0, 0.5) == step::read);
    REQUIRE(r.m->on_read(found(other_commit(0, {})), t0, 0.5) == step::done);
    CHECK_FALSE(r.ok().created);
    CHECK(r.st.next() == 1);
  }
  SUBCASE("a lost reply, ours after all") {
    run r({}, true);
    r.m->start();
    std::string const body = r.m->body();
    REQUIRE(r.m->on_write(lost(), t0, 0.5) == step::read);
    REQUIRE(r.m->on_read(absent(), t0, 0.5) == step::write);
    REQUIRE(r.m->on_write(failed_412(), t0, 0.5) == step::read);
    REQUIRE(r.m->on_read(found(body), t0, 0.5) == step::done);
    CHECK(r.ok().created);
  }
}

}  // namespace ledger_commit_machine_test
