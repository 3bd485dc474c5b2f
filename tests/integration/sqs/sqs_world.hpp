#pragma once
// One SQS test's world: a private test proxy in front of the moto that
// scripts/test started (verifier on, so every signature is checked), a
// session made from an environment of the test's own (static keys, or web
// identity through moto's STS behind the same proxy), an sqs::client made
// from it, and an io_context run on a thread.

#include "servers.hpp"  // tests/integration/http: the private proxy

#include <floe/providers/default_session.hpp>
#include <floe/sqs/client.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>
#include <doctest/doctest.h>

#include <chrono>
#include <ctime>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>

namespace asio = boost::asio;

namespace floe::test {

inline std::string base64(std::string_view in) {
  static constexpr char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  for (; i + 3 <= in.size(); i += 3) {
    unsigned const v = (static_cast<unsigned char>(in[i]) << 16) | (static_cast<unsigned char>(in[i + 1]) << 8) |
                       static_cast<unsigned char>(in[i + 2]);
    out += {digits[v >> 18], digits[(v >> 12) & 63], digits[(v >> 6) & 63], digits[v & 63]};
  }
  if (std::size_t const rest = in.size() - i; rest != 0) {
    unsigned v = static_cast<unsigned char>(in[i]) << 16;
    if (rest == 2) v |= static_cast<unsigned char>(in[i + 1]) << 8;
    out += digits[v >> 18];
    out += digits[(v >> 12) & 63];
    out += rest == 2 ? digits[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

/// `s` as a JSON string literal.
inline std::string json_quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

struct sqs_world {
  enum class keys { fixed, web_identity };
  static constexpr char const* akid = "AKIDFLOESQSIT00001";
  static constexpr char const* secret = "sqs-it-secret/0123456789abcdefghij";

  servers& srv = servers::get();
  std::string dir;
  std::map<std::string, std::string> env_map;
  asio::io_context io;
  asio::executor_work_guard<asio::io_context::executor_type> work = asio::make_work_guard(io);
  std::thread runner;
  std::shared_ptr<floe::session> session;
  std::unique_ptr<floe::sqs::client> client;

  explicit sqs_world(keys k, std::chrono::milliseconds read_timeout = {}) {
    srv.control.reset();
    srv.control.call("POST", "/verify",
                     std::string(R"({"enabled": true, "secrets": {")") + akid + R"(": ")" + secret + R"("}})");
    char tmpl[] = "/tmp/floe-sqs-it-XXXXXX";
    REQUIRE(::mkdtemp(tmpl) != nullptr);
    dir = tmpl;
    env_map = {{"AWS_REGION", "us-east-1"}, {"AWS_EC2_METADATA_DISABLED", "true"}, {"HOME", dir}};
    if (k == keys::fixed) {
      env_map["AWS_ACCESS_KEY_ID"] = akid;
      env_map["AWS_SECRET_ACCESS_KEY"] = secret;
    } else {
      std::ofstream(dir + "/token") << "sqs-it-web-identity-token";
      env_map["AWS_ENDPOINT_URL_STS"] = srv.proxy;
      env_map["AWS_ROLE_ARN"] = "arn:aws:iam::123456789012:role/floe-sqs-it";
      env_map["AWS_WEB_IDENTITY_TOKEN_FILE"] = dir + "/token";
      env_map["AWS_ROLE_SESSION_NAME"] = "floe-sqs-it";
    }
    floe::session_params sp;  // providers/default_session.hpp: the default chain reads sp.env
    sp.env = lookup();
    auto s = floe::make_session(io.get_executor(), sp);
    REQUIRE_MESSAGE(s.has_value(), (s ? "" : s.error().what()));
    session = std::move(*s);
    floe::sqs::client_options o;
    o.endpoint_url = srv.proxy;
    o.read_timeout = read_timeout;
    auto c = floe::sqs::client::create(io.get_executor(), *session, o);
    REQUIRE_MESSAGE(c.has_value(), (c ? "" : c.error().what()));
    client = std::move(*c);
    runner = std::thread([this] { io.run(); });
  }

  ~sqs_world() {
    try {
      srv.control.reset();
    } catch (...) {
    }
    work.reset();
    if (runner.joinable()) runner.join();
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }

  std::function<std::optional<std::string>(std::string_view)> lookup() const {
    auto m = env_map;
    return [m](std::string_view n) -> std::optional<std::string> {
      auto it = m.find(std::string(n));
      if (it == m.end()) return std::nullopt;
      return it->second;
    };
  }

  /// Runs an operation on the io thread and waits for it.
  template <class P>
  floe::result<typename P::result_type> call(P const& p) {
    return client->async_call(p, asio::use_future).get();
  }
  floe::result<std::string> queue_url(floe::sqs::queue_ref const& q) {
    return client->async_queue_url(q, asio::use_future).get();
  }
  std::string make_queue(std::string const& name) {
    floe::sqs::create_queue_params p;
    p.queue_name = name;
    auto r = call(p);
    REQUIRE_MESSAGE(r.has_value(), (r ? "" : r.error().what()));
    return r->queue_url;
  }

  /// A rule that only counts the requests of one operation (a zero delay).
  int count_requests(std::string const& operation) {
    return srv.control.add_rule(R"({"match": {"header": {"X-Amz-Target": "^AmazonSQS\\.)" + operation +
                                R"($"}}, "action": {"type": "delay", "ms": 0}})");
  }
  /// The proxy answers an operation with this JSON reply instead of moto.
  int add_json_reply(std::string const& operation, unsigned status, std::string const& body,
                     std::string const& trigger) {
    return srv.control.add_rule(R"({"match": {"header": {"X-Amz-Target": "^AmazonSQS\\.)" + operation +
                                R"($"}}, "trigger": )" + trigger + R"(, "action": {"type": "reply", "status": )" +
                                std::to_string(status) +
                                R"(, "headers": {"Content-Type": "application/x-amz-json-1.0"}, "body": )" +
                                json_quote(body) + "}}");
  }
  /// tests/data/sqs/aws/FILE.http, sent byte for byte by the proxy as the
  /// reply to `operation` (Content-Length made true to the body) — but for
  /// its Date, which the file fills in with a day of its own: it becomes
  /// the time of sending, or a 403 would rightly read as clock skew.
  int replay_aws_reply(std::string const& file, std::string const& operation, std::string const& trigger) {
    std::string const path = need_env("FLOE_SOURCE_ROOT") + "/tests/data/sqs/aws/" + file + ".http";
    std::ifstream in(path, std::ios::binary);
    REQUIRE_MESSAGE(in.good(), "cannot read " << path);
    std::stringstream raw;
    raw << in.rdbuf();
    std::string reply = raw.str();
    auto const date = reply.find("\r\nDate: ");
    REQUIRE(date != std::string::npos);
    auto const eol = reply.find("\r\n", date + 2);
    std::time_t const now = std::time(nullptr);
    std::tm tm{};
    ::gmtime_r(&now, &tm);
    char buf[64];
    std::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S GMT", &tm);
    reply.replace(date, eol - date, std::string("\r\nDate: ") + buf);
    return srv.control.add_rule(R"({"match": {"header": {"X-Amz-Target": "^AmazonSQS\\.)" + operation +
                                R"($"}}, "trigger": )" + trigger +
                                R"(, "action": {"type": "reply", "raw_b64": ")" + base64(reply) +
                                R"(", "fix_length": true}})");
  }

  std::string proxy_stats() { return srv.control.call("GET", "/stats"); }
  std::int64_t sts_calls() {
    auto s = proxy_stats();
    auto at = s.find("\"sts\"");
    if (at == std::string::npos) return 0;
    return json_int(s.substr(at), "sts");
  }
  /// Polls a rule's counter until it reaches `n` (a condition, not a delay).
  void await_rule(int rule, std::string_view counter, std::int64_t n) {
    auto const deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (srv.control.rule_counter(rule, counter) < n) {
      REQUIRE_MESSAGE(std::chrono::steady_clock::now() < deadline, "rule " << rule << " never reached " << n);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
};

}  // namespace floe::test
