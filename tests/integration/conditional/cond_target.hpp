#pragma once
// The store a run of the conditional-writes integration tests talks to,
// named by FLOE_TEST_COND_TARGET ("moto" or "rgw"), always through a private
// instance of the test proxy (tests/support/proxy) that this program starts
// in front of the store, with its SigV4 verifier on. Private, so that the
// fault rules added here never meet another suite's traffic and another
// suite's /reset never deletes them.
//
//  moto: upstream FLOE_TEST_MOTO_ENDPOINT (auth off; a made-up key pair the
//        proxy is told the secret of).
//  rgw:  upstream FLOE_TEST_RGW_ENDPOINT (the real Ceph RGW 16.2.15 that
//        tests/support/servers.py starts), with FLOE_TEST_RGW_ACCESS_KEY /
//        FLOE_TEST_RGW_SECRET_KEY.

#include "child_process.hpp"
#include "proxy_control.hpp"

#include <floe/credentials/provider.hpp>
#include <floe/s3/client.hpp>

#include <boost/asio/io_context.hpp>

#include <openssl/evp.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <future>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace floe::test {

inline std::string cond_env(char const* name) {
  char const* v = std::getenv(name);
  if (!v || !*v)
    throw std::runtime_error(std::string(name) +
                             " is not set: run scripts/test, or start the servers with "
                             "`eval \"$(python3 tests/support/servers.py start DIR)\"` (needs moto: pip install "
                             "'moto[server]==5.2.1' boto3; and Ceph RGW, which tests/support/ceph/start-rgw.sh installs)");
  return v;
}

struct cond_target {
  std::string name;      // "moto" or "rgw"
  std::string endpoint;  // the private verifying proxy
  proxy_control control{""};
  std::string access_key;
  std::string secret_key;  // test-only keys of a throw-away store
  std::string source_root;

  bool is_rgw() const noexcept { return name == "rgw"; }

  static cond_target& get() {
    static cond_target t = make();
    return t;
  }

  s3::client_config client_config() const {
    s3::client_config cfg;
    cfg.addressing.endpoint_url = endpoint;
    cfg.addressing.region = "us-east-1";
    cfg.env = credentials::empty_environment();
    credentials::credentials creds;
    creds.access_key_id = access_key;
    creds.secret_access_key = credentials::secret_string(secret_key);
    creds.source = "test";
    cfg.credentials = std::make_shared<credentials::static_provider>(std::move(creds));
    cfg.http.proxy = {};
    cfg.http.retry.base_delay = std::chrono::milliseconds(5);
    cfg.http.connect_timeout = std::chrono::seconds(5);
    cfg.http.idle_timeout = std::chrono::seconds(20);
    return cfg;
  }

  std::unique_ptr<s3::client> make_client(boost::asio::io_context& io) const {
    auto c = s3::client::create(io.get_executor(), client_config());
    if (!c) throw std::runtime_error("client::create: " + c.error().what());
    return std::move(*c);
  }

  /// The bytes of tests/data/vectors/errors/<file>.
  std::string vector(std::string const& file) const {
    std::string const path = source_root + "/tests/data/vectors/errors/" + file;
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("missing test vector " + path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

 private:
  static cond_target make() {
    cond_target t;
    t.name = cond_env("FLOE_TEST_COND_TARGET");
    t.source_root = cond_env("FLOE_SOURCE_ROOT");
    std::string upstream;
    if (t.name == "moto") {
      upstream = cond_env("FLOE_TEST_MOTO_ENDPOINT");
      t.access_key = "AKIAFLOECONDSUITE001";
      t.secret_key = "floe-conditional-suite-secret-moto-only-01";
    } else if (t.name == "rgw") {
      upstream = cond_env("FLOE_TEST_RGW_ENDPOINT");
      t.access_key = cond_env("FLOE_TEST_RGW_ACCESS_KEY");
      t.secret_key = cond_env("FLOE_TEST_RGW_SECRET_KEY");
    } else {
      throw std::runtime_error("FLOE_TEST_COND_TARGET must be moto or rgw, not " + t.name);
    }
    static child_process px;
    char tmpl[] = "/tmp/floe-cond-proxy-XXXXXX";
    if (!::mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
    auto const info = px.start({"python3", t.source_root + "/tests/support/proxy", "--upstream", upstream, "--log",
                                std::string(tmpl) + "/proxy.log"});
    t.endpoint = "http://127.0.0.1:" + std::to_string(json_int(info, "port"));
    t.control = proxy_control("http://127.0.0.1:" + std::to_string(json_int(info, "control_port")));
    t.control.call("POST", "/verify",
                   "{\"enabled\": true, \"secrets\": {\"" + t.access_key + "\": \"" + t.secret_key + "\"}}");
    t.control.reset();
    return t;
  }
};

inline std::string base64(std::string const& s) {
  std::string out(4 * ((s.size() + 2) / 3) + 1, '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), reinterpret_cast<unsigned char const*>(s.data()),
                          static_cast<int>(s.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

// A JSON string literal.
inline std::string json_str(std::string_view s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      o += '\\';
      o += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
      o += buf;
    } else {
      o += c;
    }
  }
  return o + "\"";
}

// Runs the io_context until the future is ready (or `limit` passes).
template <class T>
T finish(boost::asio::io_context& io, std::future<T>& f, std::chrono::seconds limit = std::chrono::seconds(60)) {
  auto const deadline = std::chrono::steady_clock::now() + limit;
  while (f.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
    if (std::chrono::steady_clock::now() >= deadline) throw std::runtime_error("operation did not complete in time");
    if (io.stopped()) io.restart();  // it ran out of work once: run_one_for would return at once from then on
    io.run_one_for(std::chrono::milliseconds(50));
  }
  return f.get();
}

inline std::string unique_bucket(std::string const& what) {
  static unsigned n = 0;
  return "floe-cond-" + what + "-" + std::to_string(::getpid()) + "-" + std::to_string(++n);
}

}  // namespace floe::test
