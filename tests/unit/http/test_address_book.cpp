// The address book's decisions (which address a new connection goes to,
// benching, when to resolve again), on a fake clock: no socket, no resolver.
#include <floe/http/address_book.hpp>
#include <floe/http/connect.hpp>

#include <doctest/doctest.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace http_address_book_test {

using namespace std::chrono_literals;
using floe::http::address_failure;
using floe::http::address_params;
using floe::http::detail::address_book;
using address = boost::asio::ip::address;

namespace {

address ip(char const* s) { return boost::asio::ip::make_address(s); }

std::vector<address> four() { return {ip("127.0.0.1"), ip("127.0.0.2"), ip("127.0.0.3"), ip("127.0.0.4")}; }

// A fake clock: a time point moved by hand.
struct fake_clock {
  address_book::time_point now = address_book::time_point{} + 1000h;
  void advance(std::chrono::milliseconds d) { now += d; }
};

constexpr char host[] = "bucket.s3.example";
constexpr std::uint16_t port = 443;

}  // namespace

TEST_CASE("address book: a name never resolved needs resolving; once resolved it does not until the TTL passes") {
  fake_clock t;
  address_book b(address_params{.ttl = 5s});
  CHECK(b.needs_resolve(host, port, t.now));
  auto const a = four();
  b.resolved(host, port, a, t.now);
  CHECK_FALSE(b.needs_resolve(host, port, t.now));
  t.advance(4999ms);
  CHECK_FALSE(b.needs_resolve(host, port, t.now));
  t.advance(1ms);
  CHECK(b.needs_resolve(host, port, t.now));
  // Another port of the same name is another entry.
  CHECK(b.needs_resolve(host, 80, t.now));
}

TEST_CASE("address book: new connections spread over every address, fewest open first, least recently picked among equals") {
  fake_clock t;
  address_book b;
  auto const a = four();
  b.resolved(host, port, a, t.now);
  std::map<std::string, int> opened;
  for (int i = 0; i < 8; ++i) {
    auto got = b.pick(host, port, t.now);
    REQUIRE(got);
    ++opened[got->to_string()];
    t.advance(1ms);
  }
  REQUIRE(opened.size() == 4);
  for (auto const& an : opened) CHECK_MESSAGE(an.second == 2, an.first);
  // One closes: the next connection goes to that address, the one with fewest open.
  b.release(host, port, ip("127.0.0.3"));
  CHECK(*b.pick(host, port, t.now) == ip("127.0.0.3"));
  // All equal again (2 each): the least recently picked goes first, 127.0.0.1.
  CHECK(*b.pick(host, port, t.now) == ip("127.0.0.1"));
}

TEST_CASE("address book: a failed address is benched with a doubling back-off, capped; a reply clears it") {
  fake_clock t;
  address_book b(address_params{.ttl = 1h, .bench = 1s, .bench_max = 4s});
  std::vector<address> const a{ip("10.0.0.1"), ip("10.0.0.2")};
  b.resolved(host, port, a, t.now);
  auto first = b.pick(host, port, t.now);
  REQUIRE(*first == a[0]);
  b.failed(host, port, a[0], address_failure::refused, t.now);
  b.release(host, port, a[0]);
  // Benched: new connections go to the other one, however many are open there.
  for (int i = 0; i < 3; ++i) CHECK(*b.pick(host, port, t.now) == a[1]);
  auto r = b.report(host, port, t.now);
  REQUIRE(r.size() == 2);
  CHECK(r[0].benched);
  CHECK(r[0].failures == 1);
  CHECK(r[1].open == 3);
  // The bench ends after 1 s: it is back (and has the fewest open).
  t.advance(1s);
  CHECK(*b.pick(host, port, t.now) == a[0]);
  // A second failure in a row: 2 s; a third: 4 s; a fourth: capped at 4 s.
  std::chrono::milliseconds const expected[] = {2s, 4s, 4s};
  for (auto want : expected) {
    b.failed(host, port, a[0], address_failure::stalled, t.now);
    r = b.report(host, port, t.now);
    CHECK(r[0].benched_until - t.now == want);
    t.advance(want);
    CHECK_FALSE(b.report(host, port, t.now)[0].benched);
  }
  CHECK(b.report(host, port, t.now)[0].failures == 4);
  b.succeeded(host, port, a[0]);
  b.failed(host, port, a[0], address_failure::reset, t.now);
  CHECK(b.report(host, port, t.now)[0].benched_until - t.now == 1s);  // back to the first step
}

TEST_CASE("address book: every address benched means resolve again; the one whose bench ends first is still picked") {
  fake_clock t;
  address_book b(address_params{.ttl = 1h, .bench = 1s, .bench_max = 60s});
  std::vector<address> const a{ip("10.0.0.1"), ip("10.0.0.2")};
  b.resolved(host, port, a, t.now);
  b.failed(host, port, a[0], address_failure::refused, t.now);
  CHECK_FALSE(b.needs_resolve(host, port, t.now));
  b.failed(host, port, a[1], address_failure::refused, t.now);
  b.failed(host, port, a[1], address_failure::refused, t.now);  // benched 2 s, longer than a[0]
  CHECK(b.needs_resolve(host, port, t.now));
  CHECK(*b.pick(host, port, t.now) == a[0]);
  // Resolving again with the same answer keeps the benches (not a way out of them).
  b.resolved(host, port, a, t.now);
  auto r = b.report(host, port, t.now);
  CHECK(r[0].benched);
  CHECK(r[1].benched);
  CHECK(r[0].open == 1);
}

TEST_CASE("address book: a new answer keeps known addresses' state, adds new ones, forgets gone ones once closed") {
  fake_clock t;
  address_book b(address_params{.ttl = 5s, .bench = 10s});
  b.resolved(host, port, std::vector<address>{ip("10.0.0.1"), ip("10.0.0.2")}, t.now);
  auto p = b.pick(host, port, t.now);  // 10.0.0.1, open
  REQUIRE(*p == ip("10.0.0.1"));
  b.failed(host, port, ip("10.0.0.2"), address_failure::refused, t.now);
  t.advance(5s);
  REQUIRE(b.needs_resolve(host, port, t.now));
  b.resolved(host, port, std::vector<address>{ip("10.0.0.2"), ip("10.0.0.3")}, t.now);
  auto r = b.report(host, port, t.now);
  REQUIRE(r.size() == 3);  // 10.0.0.1 kept while a connection to it is open
  CHECK(r[0].address == ip("10.0.0.2"));
  CHECK(r[0].benched);  // its bench survived the new answer
  CHECK(r[1].address == ip("10.0.0.3"));
  CHECK(r[2].address == ip("10.0.0.1"));
  CHECK(r[2].open == 1);
  // Gone from the answer: never picked again, even with nothing open on 10.0.0.3.
  CHECK(*b.pick(host, port, t.now) == ip("10.0.0.3"));
  CHECK(*b.pick(host, port, t.now) == ip("10.0.0.3"));
  b.release(host, port, ip("10.0.0.1"));
  CHECK(b.report(host, port, t.now).size() == 2);
  // An empty answer (the resolver failed) keeps what is known and restarts the TTL.
  t.advance(5s);
  b.resolved(host, port, std::vector<address>{}, t.now);
  CHECK(b.report(host, port, t.now).size() == 2);
  CHECK_FALSE(b.needs_resolve(host, port, t.now));
}

TEST_CASE("address book: addresses already tried are skipped; none left, or an unknown name, picks nothing") {
  fake_clock t;
  address_book b;
  CHECK_FALSE(b.pick(host, port, t.now));
  std::vector<address> const a{ip("10.0.0.1"), ip("::1")};
  b.resolved(host, port, a, t.now);
  std::vector<address> tried{ip("10.0.0.1")};
  CHECK(*b.pick(host, port, t.now, tried) == ip("::1"));
  tried.push_back(ip("::1"));
  CHECK_FALSE(b.pick(host, port, t.now, tried));
  // Releasing or failing an address the book does not know changes nothing.
  b.release(host, port, ip("10.9.9.9"));
  b.failed(host, port, ip("10.9.9.9"), address_failure::reset, t.now);
  b.release("other.example", port, ip("10.0.0.1"));
  CHECK(b.report(host, port, t.now).size() == 2);
}

TEST_CASE("resolve_overrides: one address, a comma list, several entries for one name; a name that is not an IP fails naming it") {
  floe::http::client_config cfg;
  cfg.resolve_overrides = {{"a.example", "127.0.0.1"},
                           {"B.example", "127.0.0.1, 127.0.0.2,127.0.0.3"},
                           {"b.example", "::1"},
                           {"bad.example", "127.0.0.1,localhost"}};
  std::vector<address> out;
  bool found = false;
  auto e = floe::http::detail::override_addresses(cfg, "A.EXAMPLE", out, found);
  CHECK_FALSE(e.code);
  CHECK(found);
  CHECK(out == std::vector<address>{ip("127.0.0.1")});
  out.clear();
  e = floe::http::detail::override_addresses(cfg, "b.example", out, found);
  CHECK_FALSE(e.code);
  CHECK(out == std::vector<address>{ip("127.0.0.1"), ip("127.0.0.2"), ip("127.0.0.3"), ip("::1")});
  out.clear();
  e = floe::http::detail::override_addresses(cfg, "c.example", out, found);
  CHECK_FALSE(e.code);
  CHECK_FALSE(found);
  CHECK(out.empty());
  e = floe::http::detail::override_addresses(cfg, "bad.example", out, found);
  CHECK(e.code == floe::errc::invalid_argument);
  CHECK(e.diag.message ==
        "resolve_overrides entry for \"bad.example\" is \"127.0.0.1,localhost\": \"localhost\" is not an IP address");
}

}  // namespace http_address_book_test
