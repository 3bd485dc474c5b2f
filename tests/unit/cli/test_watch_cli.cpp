// floe watch's pure CLI parts: --exec's environment, the log and --jsonl
// lines, --metrics' address, and the verb's usage checks.
#include "parse.hpp"
#include "watch_exec.hpp"
#include "watch_http.hpp"
#include "watch_log.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace cli_watch_cli_test {

using namespace floe::cli;

namespace {

floe::watch::object_work object() {
  floe::watch::object_work w;
  w.bucket = "lake";
  w.key = "in/day 1/a\nb \xc3\xa9.parquet";
  w.etag = "e-event";
  w.head_etag = "e-head";
  w.head_size = 1234;
  w.event_time = "2026-12-01T15:14:09.111176";
  w.event_name = "ObjectCreated:Put";
  return w;
}

std::string usage_of(std::vector<std::string_view> args) {
  auto r = parse_command_line(args);
  REQUIRE_FALSE(r.has_value());
  return r.error().diag.message;
}

}  // namespace

TEST_CASE("--exec: the object in the environment, as HEAD saw it") {
  auto env = exec_environment(object());
  std::vector<std::pair<std::string, std::string>> want = {
      {"FLOE_BUCKET", "lake"},
      {"FLOE_KEY", "in/day 1/a\nb \xc3\xa9.parquet"},
      {"FLOE_URI", "s3://lake/in/day 1/a\nb \xc3\xa9.parquet"},
      {"FLOE_ETAG", "e-head"},
      {"FLOE_SIZE", "1234"},
      {"FLOE_VERSION_ID", ""},
      {"FLOE_EVENT_TIME", "2026-12-01T15:14:09.111176"},
      {"FLOE_EVENT_NAME", "ObjectCreated:Put"},
  };
  CHECK(env == want);
}

TEST_CASE("log lines: text shows control characters escaped; json is exact") {
  floe::watch::log_event e{floe::watch::log_level::warning, "kept", "message m1 kept: s3://lake/a\nb", {{"message_id", "m1"}}};
  auto t = log_line(log_format::text, e);
  CHECK(t.ends_with(" warning kept message m1 kept: s3://lake/a\\x0ab\n"));
  CHECK(t.find('\n') == t.size() - 1);
  auto j = log_line(log_format::json, e);
  CHECK(j.find(R"("level":"warning")") != std::string::npos);
  CHECK(j.find(R"("event":"kept")") != std::string::npos);
  CHECK(j.find(R"("message":"message m1 kept: s3://lake/a\nb")") != std::string::npos);
  CHECK(j.find(R"("message_id":"m1")") != std::string::npos);
  CHECK(j.find('\n') == j.size() - 1);
}

TEST_CASE("--jsonl: one object per line") {
  auto line = registered_line(object(), 42, "s3://lake/ledgers/raw/");
  CHECK(line == "{\"bucket\":\"lake\",\"key\":\"in/day 1/a\\nb \xc3\xa9.parquet\",\"etag\":\"e-head\",\"version_id\":\"\","
                "\"size\":1234,\"event_time\":\"2026-12-01T15:14:09.111176\",\"event_name\":\"ObjectCreated:Put\","
                "\"commit\":42,\"ledger\":\"s3://lake/ledgers/raw/\"}\n");
}

TEST_CASE("--metrics takes ADDRESS:PORT") {
  auto a = parse_listen_address("127.0.0.1:9100");
  REQUIRE(a.has_value());
  CHECK(a->port() == 9100);
  CHECK(a->address().to_string() == "127.0.0.1");
  auto v6 = parse_listen_address("[::1]:0");
  REQUIRE(v6.has_value());
  CHECK(v6->address().is_v6());
  CHECK_FALSE(parse_listen_address("localhost:9100").has_value());
  CHECK_FALSE(parse_listen_address("127.0.0.1").has_value());
  CHECK_FALSE(parse_listen_address("127.0.0.1:70000").has_value());
  CHECK_FALSE(parse_listen_address(":80").has_value());
}

TEST_CASE("floe watch: what is checked before anything is sent") {
  CHECK(usage_of({"watch", "s3://lake/in/**"}).find("--queue") != std::string::npos);
  CHECK(usage_of({"watch", "--queue", "q", "s3://lake/in/**"}).find("--ledger") != std::string::npos);
  CHECK(usage_of({"watch", "--queue", "q", "--ledger", "s3://lake/l/"}) == "missing argument");
  CHECK(usage_of({"watch", "--queue", "bad name", "--ledger", "s3://lake/l/", "s3://lake/**"}).find("--queue") !=
        std::string::npos);
  CHECK(usage_of({"watch", "--queue", "q", "--ledger", "s3://lake/l/", "lake/**"}).find("s3://") != std::string::npos);
  CHECK(usage_of({"watch", "--queue", "q", "--ledger", "s3://lake/l/", "--log-format", "xml", "s3://lake/**"})
            .find("text or json") != std::string::npos);
  CHECK(usage_of({"watch", "--queue", "q", "--ledger", "s3://lake/l/", "--visibility-timeout", "5", "s3://lake/**"})
            .find("10 to 43200") != std::string::npos);
  auto ok = parse_command_line({"watch", "--queue", "http://127.0.0.1:1/000000000000/q", "--ledger", "s3://lake/l",
                                "--jsonl", "--metrics", "127.0.0.1:0", "--log-format=json", "--exec", "true",
                                "s3://lake/in/**/*.parquet", "s3://other/x/"});
  REQUIRE_MESSAGE(ok.has_value(), (ok ? std::string() : ok.error().diag.message));
  CHECK(ok->queue == "http://127.0.0.1:1/000000000000/q");
  CHECK(ok->ledger == "s3://lake/l");
  CHECK(ok->jsonl);
  CHECK(ok->metrics == "127.0.0.1:0");
  CHECK(ok->log_format == "json");
  CHECK(ok->exec == "true");
  CHECK(ok->args.size() == 2);
}

}  // namespace cli_watch_cli_test
