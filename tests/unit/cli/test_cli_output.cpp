// The CLI's pure helpers: redaction of request targets and headers for the
// -v / --debug log, and the one log line per HTTP attempt.
#include "help.hpp"
#include "json_writer.hpp"
#include "output.hpp"
#include "parse.hpp"
#include "request_log.hpp"
#include "verbs.hpp"

#include <floe/http/fields.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cstdio>
#include <set>
#include <string>
#include <vector>
#include <unistd.h>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace cli_cli_output_test {

using namespace floe;

TEST_CASE("redact_target hides every signing value in a query, keeps the rest as sent") {
  std::string const presigned =
      "/b/k%20x?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIDEXAMPLE%2F20240101%2Fus-east-1%2Fs3%2Faws4_request"
      "&X-Amz-Date=20240101T000000Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host"
      "&X-Amz-Security-Token=FwoGZXIvYXdzSESSION&X-Amz-Signature=deadbeefcafe";
  auto r = cli::redact_target(presigned);
  CHECK(r ==
        "/b/k%20x?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=REDACTED&X-Amz-Date=20240101T000000Z"
        "&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Security-Token=REDACTED&X-Amz-Signature=REDACTED");
  for (auto secret : {"AKIDEXAMPLE", "FwoGZXIvYXdzSESSION", "deadbeefcafe"}) CHECK(r.find(secret) == std::string::npos);
  // SigV2 and STS query forms; names compared without case.
  CHECK(cli::redact_target("/k?AWSAccessKeyId=AKID&Expires=1&Signature=abc") ==
        "/k?AWSAccessKeyId=REDACTED&Expires=1&Signature=REDACTED");
  CHECK(cli::redact_target("/?Action=AssumeRoleWithWebIdentity&WebIdentityToken=eyJ&x-amz-signature=s") ==
        "/?Action=AssumeRoleWithWebIdentity&WebIdentityToken=REDACTED&x-amz-signature=REDACTED");
  // Nothing to hide: unchanged, including odd shapes.
  CHECK(cli::redact_target("/b?list-type=2&prefix=a%26b&delete") == "/b?list-type=2&prefix=a%26b&delete");
  CHECK(cli::redact_target("/b/k") == "/b/k");
  CHECK(cli::redact_target("/b?") == "/b?");
  CHECK(cli::redact_target("/b?&&x=1") == "/b?&&x=1");
}

TEST_CASE("is_secret_header: credentials, tokens, signatures and keys, in any case") {
  for (auto n : {"Authorization", "authorization", "Proxy-Authorization", "X-Amz-Security-Token", "Cookie", "Set-Cookie",
                 "x-amz-server-side-encryption-customer-key", "X-Amz-Copy-Source-Server-Side-Encryption-Customer-Key",
                 "X-Aws-Ec2-Metadata-Token", "X-My-Secret"})
    CHECK_MESSAGE(cli::is_secret_header(n), n);
  for (auto n : {"Host", "X-Amz-Date", "X-Amz-Content-SHA256", "x-amz-meta-floe-write-id", "If-Match", "Content-Length",
                 "x-amz-request-id"})
    CHECK_MESSAGE(!cli::is_secret_header(n), n);
}

namespace {

// Runs log_exchange with stderr redirected to a temporary file; returns what it wrote.
std::string logged(cli::global_options const& g, http::exchange_view const& v) {
  std::fflush(stderr);
  char tmpl[] = "/tmp/floe-cli-log-XXXXXX";
  int fd = ::mkstemp(tmpl);
  REQUIRE(fd >= 0);
  int saved = ::dup(2);
  ::dup2(fd, 2);
  cli::log_exchange(g, v);
  std::fflush(stderr);
  ::dup2(saved, 2);
  ::close(saved);
  std::string out;
  char buf[4096];
  ::lseek(fd, 0, SEEK_SET);
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) out.append(buf, static_cast<std::size_t>(n));
  ::close(fd);
  ::unlink(tmpl);
  return out;
}

}  // namespace

TEST_CASE("log_exchange: one line per attempt; --debug adds headers with secrets redacted; nothing without -v") {
  http::endpoint ep{false, "127.0.0.1", 9000};
  http::fields req_h, rep_h;
  req_h.set("Host", "127.0.0.1:9000");
  req_h.set("Authorization", "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/x, SignedHeaders=host, Signature=0123abcd");
  req_h.set("X-Amz-Security-Token", "FwoGZXIvYXdzSESSION");
  rep_h.set("x-amz-request-id", "RID42");
  rep_h.set("x-amz-bucket-region", "eu-west-1");
  rep_h.set("Location", "http://other/b/k?X-Amz-Signature=feedface");
  http::exchange_view v;
  v.operation = "GetObject";
  v.method = "GET";
  v.ep = &ep;
  v.target = "/b/k?X-Amz-Signature=feedface&versionId=3";
  v.request_headers = &req_h;
  v.status = 301;
  v.reply_headers = &rep_h;
  v.attempt = 2;
  v.reused_connection = true;
  v.elapsed = std::chrono::milliseconds(12);

  cli::global_options quiet;
  CHECK(logged(quiet, v).empty());

  cli::global_options g;
  g.debug = true;
  auto line = logged(g, v);
  CHECK(line ==
        "floe: debug: [GetObject #2] GET http://127.0.0.1:9000/b/k?X-Amz-Signature=REDACTED&versionId=3 -> 301 "
        "request-id RID42 bucket-region eu-west-1 location http://other/b/k?X-Amz-Signature=REDACTED "
        "(12 ms, reused connection)\n");
  // With the address connected to, the time to first byte, and a hedge's flags.
  v.peer = "127.0.0.3:9000";
  v.ttfb = std::chrono::microseconds(10'250);
  v.hedge = true;
  v.hedge_won = true;
  v.reused_connection = false;
  line = logged(g, v);
  CHECK(line.find("[GetObject #2 hedge won] GET ") != std::string::npos);
  CHECK(line.find("(12 ms, ttfb 10.2 ms, new connection to 127.0.0.3:9000)\n") != std::string::npos);
  v.hedge_won = false;
  CHECK(logged(g, v).find("[GetObject #2 hedge] GET ") != std::string::npos);
  v.peer = {};
  v.ttfb = {};
  v.hedge = false;

  g.debug_headers = true;
  auto all = logged(g, v);
  CHECK(all.find("> Authorization: REDACTED\n") != std::string::npos);
  CHECK(all.find("> X-Amz-Security-Token: REDACTED\n") != std::string::npos);
  CHECK(all.find("< x-amz-request-id: RID42\n") != std::string::npos);
  for (auto secret : {"AKIDEXAMPLE", "0123abcd", "FwoGZXIvYXdzSESSION", "feedface"})
    CHECK_MESSAGE(all.find(secret) == std::string::npos, secret);

  // No reply: the error instead of a status; a resend is marked.
  http::exchange_view lost = v;
  lost.status = 0;
  lost.reply_headers = nullptr;
  lost.ec = make_error_code(boost::system::errc::connection_reset);
  lost.resend = true;
  lost.attempt = 1;
  g.debug_headers = false;
  auto l2 = logged(g, lost);
  CHECK(l2.find("[GetObject #1 resend] GET ") != std::string::npos);
  CHECK(l2.find("-> no reply: ") != std::string::npos);
}

// ---- the JSON writer -------------------------------------------------------

TEST_CASE("json_writer: the library's writer chained, with the CLI's escapes; a document goes out piecewise") {
  cli::json_writer w;
  w.begin_object().field("a", 1).field("b", true).key("c").null();
  w.key("list").begin_array().value("x").begin_object().end_object().begin_array().end_array().value(-2).end_array();
  w.field("big", std::uint64_t{18446744073709551615ull}).end_object();
  CHECK(w.str() == R"({"a":1,"b":true,"c":null,"list":["x",{},[],-2],"big":18446744073709551615})");
  CHECK(w.line() == w.str() + "\n");

  // The escapes the library writer makes with json_options (its tests,
  // tests/unit/json, hold every case): DEL and each bad byte as escapes.
  cli::json_writer e;
  e.begin_object().field("\xff", "del\x7f").end_object();
  CHECK(e.str() == R"({"\ufffd":"del\u007f"})");

  // ls --json / sync --json: values held apart (by a json_elements writer)
  // go out between two takes, the writer placing their comma and closing.
  cli::json_writer held(cli::json_elements);
  std::string spilled = held.value("p/").take();
  spilled += held.value("q/").take();
  CHECK(spilled == R"("p/","q/")");
  cli::json_writer d;
  d.begin_object().key("objects").begin_array().value(1);
  std::string out = d.take();
  d.end_array().key("prefixes").begin_array().splice_values(true);
  out += d.take() + spilled;
  d.end_array().field("total_objects", 1).end_object();
  out += d.line();
  CHECK(out == "{\"objects\":[1],\"prefixes\":[\"p/\",\"q/\"],\"total_objects\":1}\n");
}

TEST_CASE("write_error_fields: one object with every field of the error") {
  error e(errc::not_found);
  e.diag.operation = "GetObject";
  e.diag.resource = "b/k\x01";
  e.diag.http_status = 404;
  e.diag.code = "NoSuchKey";
  e.diag.message = "The specified key does not exist.";
  e.diag.request_id = "RID";
  cli::json_writer w;
  cli::write_error_fields(w, e);
  CHECK(w.str() ==
        R"({"kind":"not_found","operation":"GetObject","resource":"b/k\u0001","status":404,"code":"NoSuchKey",)"
        R"("message":"The specified key does not exist.","request_id":"RID","exit_code":4})");
}

// ---- help texts agree with the parser ---------------------------------------

namespace {

constexpr std::array<std::string_view, 13> all_verbs{"ls",   "cp",  "cat",     "mv", "sync", "rm",     "stat",
                                                    "put",  "presign", "mb", "rb",   "whoami", "sqs"};

// Every "--name" in `text`.
std::set<std::string> long_options_in(std::string_view text) {
  std::set<std::string> out;
  for (std::size_t i = 0; (i = text.find("--", i)) != std::string_view::npos;) {
    std::size_t j = i + 2;
    while (j < text.size() && ((text[j] >= 'a' && text[j] <= 'z') || text[j] == '-')) ++j;
    if (j > i + 2) out.emplace(text.substr(i, j - i));
    i = j;
  }
  return out;
}

// Whether the parser takes `opt` after `verb` (a bad or missing value, a
// missing argument: still taken; unknown or "does not apply": not).
bool accepts(std::string_view verb, std::string const& opt) {
  std::string const arg = opt + "=x";
  std::vector<std::string_view> argv{verb, arg};
  auto r = cli::parse_command_line(argv);
  if (r) return true;
  auto const& m = r.error().diag.message;
  return m.find("unknown option") == std::string::npos && m.find("does not apply") == std::string::npos;
}

std::string_view section(std::string_view text, std::string_view from, std::string_view to) {
  auto a = text.find(from);
  if (a == std::string_view::npos) return {};
  auto b = text.find(to, a);
  return text.substr(a, b == std::string_view::npos ? std::string_view::npos : b - a);
}

}  // namespace

TEST_CASE("floe VERB --help names exactly the options the parser accepts for VERB; floe --help each verb's") {
  // Every option any help text names, and a few the parser must refuse.
  std::set<std::string> universe{"--nope", "--recursiv", "--if-matches"};
  auto const overview = cli::help_text("");
  for (auto const& o : long_options_in(overview)) universe.insert(o);
  for (auto v : all_verbs) {
    REQUIRE(cli::is_verb(v));
    for (auto const& o : long_options_in(cli::help_text(v))) universe.insert(o);
  }
  auto const globals = long_options_in(section(overview, "Global options", "\n\n"));
  for (auto g : {"--endpoint-url", "--region", "--profile", "--path-style", "--ca-bundle", "--no-verify-ssl", "--json",
                 "--verbose", "--debug", "--help", "--version"})
    CHECK_MESSAGE(globals.count(g) == 1, g);

  for (auto v : all_verbs) {
    auto const help = cli::help_text(v);
    CHECK(help.starts_with("usage: floe " + std::string(v)));
    auto const named = long_options_in(help);
    auto const own = long_options_in(section(help, "\nOptions:\n", "\nGlobal options"));
    // The overview's synopsis line for the verb.
    auto const at = overview.find("floe " + std::string(v) + (v == "whoami" ? "" : " "));
    REQUIRE(at != std::string::npos);
    // (wrapped: continuation lines are indented past the command names)
    auto end = at;
    while ((end = overview.find('\n', end + 1)) != std::string::npos && overview.compare(end + 1, 11, std::string(11, ' ')) == 0) {
    }
    auto const synopsis = long_options_in(overview.substr(at, end - at));
    auto const usage = long_options_in(help.substr(0, help.find('\n')));
    std::set<std::string> expected_own;  // the verb's own options
    for (auto const& o : universe) {
      bool const ok = accepts(v, o);
      CHECK_MESSAGE(ok == (named.count(o) == 1),
                    "floe " << v << " " << o << (ok ? ": accepted, not in --help" : ": in --help, refused"));
      if (ok && globals.count(o) == 0) expected_own.insert(o);
    }
    if (v == "whoami") expected_own.insert("--verbose");  // global, with more to it here
    CHECK(own == expected_own);
    for (auto const& o : expected_own) {
      CHECK_MESSAGE(usage.count(o) == 1, "floe " << v << " --help: " << o << " missing from the usage line");
      CHECK_MESSAGE(synopsis.count(o) == 1, "floe --help: " << o << " missing from the line of " << v);
    }
  }
  // The ones the audit found missing.
  CHECK(long_options_in(cli::help_text("presign")).count("--method") == 1);
  CHECK(long_options_in(overview.substr(overview.find("floe put "), 200)).count("--if-match") == 1);
}

TEST_CASE("printable: C0, DEL and C1 controls and bytes that are not UTF-8 as \\xNN; UTF-8 text kept") {
  CHECK(cli::printable("plain key/x.txt") == "plain key/x.txt");
  CHECK(cli::printable("tab\there\x1b[2J") == "tab\\x09here\\x1b[2J");
  CHECK(cli::printable("del\x7f") == "del\\x7f");
  // U+009B (CSI) and U+0085 (NEL) as UTF-8: C1 controls a terminal may obey.
  CHECK(cli::printable("a\xc2\x9b" "2Jb") == "a\\xc2\\x9b2Jb");
  CHECK(cli::printable("\xc2\x85") == "\\xc2\\x85");
  CHECK(cli::printable("\xc2\x80\xc2\x9f") == "\\xc2\\x80\\xc2\\x9f");
  // A bare 0x9B (CSI in an 8-bit terminal), a lone continuation byte, a
  // truncated sequence, an overlong form and a surrogate are not UTF-8.
  CHECK(cli::printable("x\x9b" "2J") == "x\\x9b2J");
  CHECK(cli::printable("\x80") == "\\x80");
  CHECK(cli::printable("\xe2\x82") == "\\xe2\\x82");
  CHECK(cli::printable("\xc0\xaf") == "\\xc0\\xaf");
  CHECK(cli::printable("\xed\xa0\x80") == "\\xed\\xa0\\x80");
  // Text outside ASCII passes: U+00A0 (the first after C1), é, €, a CJK
  // character and an emoji.
  CHECK(cli::printable("\xc2\xa0") == "\xc2\xa0");
  CHECK(cli::printable("caf\xc3\xa9 \xe2\x82\xac \xe4\xb8\xad \xf0\x9f\x98\x80") ==
        "caf\xc3\xa9 \xe2\x82\xac \xe4\xb8\xad \xf0\x9f\x98\x80");
}

}  // namespace cli_cli_output_test
