// The AWS SigV4 test suite (aws-c-auth, 38 cases), header and query styles:
// every intermediate a case provides must match byte for byte, except that
// signed requests are compared with header lines and query parameters as
// unordered sets (HTTP gives their order no meaning, and our presigned query
// follows botocore's parameter order, which the suite does not).

#include "suite_support.hpp"

#include <floe/sigv4/signer.hpp>

#include <doctest/doctest.h>

#include <map>
#include <set>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace sigv4_suite_test {

namespace {

std::vector<suite::test_case> const& cases() {
  static std::vector<suite::test_case> const c = suite::load_cases();
  return c;
}

std::string where_to_get() {
  return "the AWS SigV4 test suite at " + suite::vectors_dir().string() + " has " +
         std::to_string(cases().size()) + " cases, 38 needed (run through meson test, which sets FLOE_TEST_DATA; "
         "the suite comes from github.com/awslabs/aws-c-auth, folder tests/aws-signing-test-suite/v4, commit 495329c2)";
}

struct comparable {
  std::string method, path, body;
  std::multiset<std::string> query;
  std::multiset<std::pair<std::string, std::string>> headers;
  bool operator==(comparable const&) const = default;
};

comparable normalise(suite::http_message const& m) {
  comparable c;
  c.method = m.method;
  c.path = m.path();
  std::string const q = m.query();
  std::size_t pos = 0;
  while (!q.empty() && pos <= q.size()) {
    std::size_t end = q.find('&', pos);
    if (end == std::string::npos) end = q.size();
    c.query.insert(q.substr(pos, end - pos));
    pos = end + 1;
  }
  for (auto const& h : m.headers) {
    std::string n;
    for (char ch : h.name) n += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    c.headers.emplace(n, h.value);
  }
  c.body = m.body;
  return c;
}

std::string describe(comparable const& c) {
  std::string s = c.method + " " + c.path + "\n";
  for (auto const& q : c.query) s += "  ?" + q + "\n";
  for (auto const& [n, v] : c.headers) s += "  " + n + ":" + v + "\n";
  return s + "  body: " + c.body;
}

std::optional<std::string> expected(suite::test_case const& c, char const* file) {
  auto t = suite::read(c.dir / file);
  if (!t) return std::nullopt;
  // Expected files may end with newlines that are not part of the value.
  std::string s = *t;
  if (std::string_view(file).find("signed-request") == std::string_view::npos)
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

struct header_run {
  suite::prepared p;
  floe::sigv4::header_signature sig;
  bool ok = false;
  explicit header_run(suite::test_case const& c) {
    suite::prepare(c, p);
    floe::sigv4::signer s;
    ok = s.sign_headers(p.req, p.creds, p.params, c.time, sig).has_value();
  }
  suite::http_message signed_request(suite::test_case const& c) const {
    suite::http_message m = c.request;
    sig.for_each_header([&](std::string_view n, std::string_view v) {
      m.headers.push_back({std::string(n), std::string(v)});
    });
    return m;
  }
};

struct query_run {
  suite::prepared p;
  floe::sigv4::presigned_query sig;
  bool ok = false;
  explicit query_run(suite::test_case const& c) {
    suite::prepare(c, p);
    floe::sigv4::signer s;
    ok = s.presign(p.req, p.creds, p.params, c.time, std::chrono::seconds(c.expires), sig).has_value();
  }
  suite::http_message signed_request(suite::test_case const& c) const {
    suite::http_message m = c.request;
    m.target += (m.query().empty() ? (m.target.find('?') == std::string::npos ? "?" : "") : "&") + sig.query;
    return m;
  }
};

// Calls f(case, expected text) for each case that has `file`; returns how many.
template <class F>
int for_each_with(char const* file, F f) {
  int n = 0;
  for (auto const& c : cases()) {
    auto e = expected(c, file);
    if (!e) continue;
    INFO("case " << c.name << ", file " << file);
    f(c, *e);
    ++n;
  }
  return n;
}

}  // namespace

TEST_CASE("the AWS SigV4 suite is present with at least 38 cases") {
  INFO(where_to_get());
  REQUIRE(cases().size() >= 38);
}

TEST_CASE("header style: canonical request, string to sign and signature match every case") {
  REQUIRE_MESSAGE(cases().size() >= 38, where_to_get());
  int n = 0;
  for (auto const& c : cases()) {
    INFO("case " << c.name);
    header_run r(c);
    REQUIRE(r.ok);
    if (auto e = expected(c, "header-canonical-request.txt")) { CHECK(r.sig.canonical_request == *e); ++n; }
    if (auto e = expected(c, "header-string-to-sign.txt")) { CHECK(r.sig.string_to_sign == *e); ++n; }
    if (auto e = expected(c, "header-signature.txt")) { CHECK(r.sig.signature == *e); ++n; }
  }
  CHECK(n >= 3 * 38);
}

TEST_CASE("header style: the signed request carries exactly the expected headers") {
  REQUIRE_MESSAGE(cases().size() >= 38, where_to_get());
  int n = for_each_with("header-signed-request.txt", [](suite::test_case const& c, std::string const& e) {
    header_run r(c);
    REQUIRE(r.ok);
    auto mine = normalise(r.signed_request(c));
    auto theirs = normalise(suite::parse_message(e));
    INFO("ours:\n" << describe(mine) << "\nexpected:\n" << describe(theirs));
    CHECK(mine == theirs);
  });
  CHECK(n >= 38);
}

TEST_CASE("query style: canonical request, string to sign and signature match every case") {
  REQUIRE_MESSAGE(cases().size() >= 38, where_to_get());
  int n = 0;
  for (auto const& c : cases()) {
    INFO("case " << c.name);
    query_run r(c);
    REQUIRE(r.ok);
    if (auto e = expected(c, "query-canonical-request.txt")) { CHECK(r.sig.canonical_request == *e); ++n; }
    if (auto e = expected(c, "query-string-to-sign.txt")) { CHECK(r.sig.string_to_sign == *e); ++n; }
    if (auto e = expected(c, "query-signature.txt")) { CHECK(r.sig.signature == *e); ++n; }
  }
  CHECK(n >= 3 * 38);
}

TEST_CASE("query style: the presigned request carries exactly the expected parameters") {
  REQUIRE_MESSAGE(cases().size() >= 38, where_to_get());
  int n = for_each_with("query-signed-request.txt", [](suite::test_case const& c, std::string const& e) {
    query_run r(c);
    REQUIRE(r.ok);
    auto mine = normalise(r.signed_request(c));
    auto theirs = normalise(suite::parse_message(e));
    INFO("ours:\n" << describe(mine) << "\nexpected:\n" << describe(theirs));
    CHECK(mine == theirs);
  });
  CHECK(n >= 38);
}

}  // namespace sigv4_suite_test
