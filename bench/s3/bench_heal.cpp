// Healing after a credential revocation, timed: floe's S3 client with web
// identity credentials (the refreshing cache over STS) through the test proxy
// (tests/support/proxy) in front of moto. Each round: a GET succeeds, the
// proxy revokes every issued key, the next GET meets a 403, the cache fetches
// a fresh set from STS and the GET is retried once. Prints one JSON line with
// medians over the rounds, in ms:
//   first_403_to_success: from the first 403 (when the forced STS fetch
//     starts: the 403 is classified and the generation invalidated at once)
//     to the healed GET's success;
//   after_sts_reply: from the STS reply (the fetch's end) to that success:
//     the target is <= 100 ms (no back-off timer on the auth path);
//   sts: the AssumeRoleWithWebIdentity call itself.
// A program, not a test.
//
//   bench_heal PROXY_ENDPOINT PROXY_CONTROL_ENDPOINT ROUNDS
#include <floe/credentials/refreshing.hpp>
#include <floe/providers/web_identity.hpp>
#include <floe/http/client.hpp>
#include <floe/s3/client.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace {

namespace asio = boost::asio;
using steady = std::chrono::steady_clock;

// Wraps the web identity source to time each fetch.
class timed_source final : public floe::credentials::refreshing_source {
 public:
  explicit timed_source(std::unique_ptr<floe::credentials::web_identity_source> inner) : inner_(std::move(inner)) {}
  asio::awaitable<floe::result<floe::credentials::credentials>> fetch() override {
    started = steady::now();
    auto r = co_await inner_->fetch();
    ended = steady::now();
    ++fetches;
    co_return r;
  }
  std::string describe() const override { return inner_->describe(); }
  steady::time_point started, ended;
  unsigned fetches = 0;

 private:
  std::unique_ptr<floe::credentials::web_identity_source> inner_;
};

double ms(steady::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

double median(std::vector<double> v) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct figures {
  std::vector<double> first_403_to_success, after_sts_reply, sts;
  std::string error;
};

asio::awaitable<void> control(floe::http::client& http, floe::http::url const& u, std::string target,
                              std::string body, std::string& error) {
  floe::http::request req;
  req.method = "POST";
  req.target = std::move(target);
  req.headers.set("Content-Type", "application/json");
  req.body = floe::http::body_source::memory(body);
  floe::http::response res;
  auto e = co_await http.async_send(u.ep, req, res, asio::use_awaitable);
  if (e.code || res.status != 200) error = "proxy control " + req.target + " failed";
}

asio::awaitable<void> rounds(floe::s3::client& s3, floe::http::client& http, floe::http::url const& ctl,
                             timed_source& src, unsigned n, figures& f) {
  std::string const bucket = "floe-bench-heal";
  std::string const key = "k";
  std::string const data = "healed";
  co_await control(http, ctl, "/reset", "{}", f.error);
  co_await control(http, ctl, "/verify", R"({"enabled": true})", f.error);
  if (!f.error.empty()) co_return;
  auto made = co_await s3.async_create_bucket(bucket, asio::use_awaitable);
  if (!made && made.error().code != floe::errc::conflict) {
    f.error = made.error().what();
    co_return;
  }
  auto body = floe::http::body_source::memory(data);
  auto put = co_await s3.async_put_object(bucket, key, body, asio::use_awaitable);
  if (!put) {
    f.error = put.error().what();
    co_return;
  }
  for (unsigned i = 0; i < n; ++i) {
    auto warm = co_await s3.async_get_object(bucket, key, asio::use_awaitable);
    if (!warm) {
      f.error = "warm GET: " + warm.error().what();
      co_return;
    }
    unsigned const fetches = src.fetches;
    co_await control(http, ctl, "/revoke", R"({"access_keys": "all-issued"})", f.error);
    if (!f.error.empty()) co_return;
    auto healed = co_await s3.async_get_object(bucket, key, asio::use_awaitable);
    auto const done = steady::now();
    if (!healed || healed->body != data) {
      f.error = "GET after revocation: " + (healed ? std::string("wrong body") : healed.error().what());
      co_return;
    }
    if (src.fetches != fetches + 1) {
      f.error = "the GET after revocation did not cause exactly one STS fetch";
      co_return;
    }
    f.first_403_to_success.push_back(ms(done - src.started));
    f.after_sts_reply.push_back(ms(done - src.ended));
    f.sts.push_back(ms(src.ended - src.started));
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s PROXY_ENDPOINT PROXY_CONTROL_ENDPOINT ROUNDS\n", argv[0]);
    return 2;
  }
  auto ctl = floe::http::parse_url(argv[2]);
  if (!ctl) {
    std::fprintf(stderr, "bench_heal: %s\n", ctl.error().what().c_str());
    return 2;
  }
  char dir[] = "/tmp/floe-bench-heal-XXXXXX";
  if (::mkdtemp(dir) == nullptr) return 2;
  std::string const token_file = std::string(dir) + "/token";
  std::ofstream(token_file) << "bench-token";

  std::map<std::string, std::string> env_map = {{"AWS_ENDPOINT_URL_STS", argv[1]},
                                                {"AWS_REGION", "us-east-1"},
                                                {"AWS_ROLE_ARN", "arn:aws:iam::123456789012:role/floe-bench"},
                                                {"AWS_WEB_IDENTITY_TOKEN_FILE", token_file},
                                                {"AWS_ROLE_SESSION_NAME", "floe-bench"},
                                                {"AWS_EC2_METADATA_DISABLED", "true"}};
  floe::credentials::env_lookup env = [env_map](std::string_view n) -> std::optional<std::string> {
    auto it = env_map.find(std::string(n));
    if (it == env_map.end()) return std::nullopt;
    return it->second;
  };

  asio::io_context io(1);
  auto cfg = floe::credentials::web_identity_from_environment(env);
  if (!cfg || !*cfg) {
    std::fprintf(stderr, "bench_heal: no web identity configuration\n");
    return 2;
  }
  floe::sts::client_config sts_cfg;
  sts_cfg.env = env;
  sts_cfg.http.proxy.no_proxy = "*";  // loopback: never through a proxy the environment names
  auto inner = floe::credentials::web_identity_source::create(io.get_executor(), **cfg, sts_cfg);
  if (!inner) {
    std::fprintf(stderr, "bench_heal: %s\n", inner.error().what().c_str());
    return 2;
  }
  auto src_owned = std::make_unique<timed_source>(std::move(*inner));
  auto& src = *src_owned;
  auto provider = floe::credentials::refreshing_provider::create(io.get_executor(), std::move(src_owned));

  floe::s3::client_config sc;
  sc.env = env;
  sc.addressing.endpoint_url = argv[1];
  sc.addressing.region = "us-east-1";
  sc.addressing.style = floe::s3::addressing_style::path;
  sc.credentials = provider;
  sc.http.proxy.no_proxy = "*";
  auto s3 = floe::s3::client::create(io.get_executor(), sc);
  if (!s3) {
    std::fprintf(stderr, "bench_heal: %s\n", s3.error().what().c_str());
    return 2;
  }
  floe::http::client_config hc;
  floe::http::client http(io.get_executor(), hc);

  figures f;
  auto const n = static_cast<unsigned>(std::strtoul(argv[3], nullptr, 10));
  asio::co_spawn(io, rounds(**s3, http, *ctl, src, n ? n : 1, f), asio::detached);
  io.run();
  ::unlink(token_file.c_str());
  ::rmdir(dir);
  if (!f.error.empty()) {
    std::fprintf(stderr, "bench_heal: %s\n", f.error.c_str());
    return 1;
  }
  std::printf("{\"rounds\": %zu, \"first_403_to_success_ms\": %.2f, \"after_sts_reply_ms\": %.2f, \"sts_ms\": %.2f}\n",
              f.sts.size(), median(f.first_403_to_success), median(f.after_sts_reply), median(f.sts));
  return 0;
}
