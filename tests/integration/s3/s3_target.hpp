#pragma once
// The store this run of the S3 integration suite talks to, named by
// FLOE_TEST_S3_TARGET ("moto" or "rgw"), always through an instance of the
// test proxy (tests/support/proxy) with its SigV4 verifier on, so that every
// signature floe makes is checked by an independent implementation.
//
//  moto: a private proxy this program starts in front of FLOE_TEST_MOTO_ENDPOINT
//        (moto runs with IAM auth off; the key pair below is made up and the
//        proxy is told its secret). Private, because enabling the verifier on
//        the shared proxy would reject other suites' dummy signatures.
//  rgw:  the proxy servers.py put in front of the real Ceph RGW
//        (FLOE_TEST_RGW_PROXY_ENDPOINT / _CONTROL) with the RGW user's keys.

#include "child_process.hpp"
#include "proxy_control.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace floe::test {

inline std::string need_env(char const* name, char const* how) {
  char const* v = std::getenv(name);
  if (!v || !*v) throw std::runtime_error(std::string(name) + " is not set: " + how);
  return v;
}

inline constexpr char servers_hint[] =
    "run scripts/test, or start the servers with `eval \"$(python3 tests/support/servers.py start DIR)\"` "
    "(needs moto: pip install 'moto[server]==5.2.1' boto3; and Ceph RGW, which tests/support/ceph/start-rgw.sh installs)";

struct s3_target {
  std::string name;         // "moto" or "rgw"
  std::string endpoint;     // the verifying proxy, http://127.0.0.1:P
  proxy_control control{""};
  std::string access_key;
  std::string secret_key;   // test-only keys of a throw-away store
  std::string direct;       // the store itself (no proxy)

  bool is_rgw() const noexcept { return name == "rgw"; }

  static s3_target& get() {
    static s3_target t = make();
    return t;
  }

 private:
  static s3_target make() {
    s3_target t;
    t.name = need_env("FLOE_TEST_S3_TARGET", "the meson test definition names the store (moto or rgw)");
    if (t.name == "moto") {
      t.direct = need_env("FLOE_TEST_MOTO_ENDPOINT", servers_hint);
      std::string const root = need_env("FLOE_SOURCE_ROOT", "run the test through meson");
      static child_process px;
      char tmpl[] = "/tmp/floe-s3-proxy-XXXXXX";
      if (!::mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
      auto const info = px.start({"python3", root + "/tests/support/proxy", "--upstream", t.direct, "--log",
                                  std::string(tmpl) + "/proxy.log"});
      t.endpoint = "http://127.0.0.1:" + std::to_string(json_int(info, "port"));
      t.control = proxy_control("http://127.0.0.1:" + std::to_string(json_int(info, "control_port")));
      // moto checks no signature: any key pair does, the proxy checks it.
      t.access_key = "AKIAFLOES3SUITE00001";
      t.secret_key = "floe-s3-suite-secret-for-moto-only-0000001";
    } else if (t.name == "rgw") {
      t.direct = need_env("FLOE_TEST_RGW_ENDPOINT", servers_hint);
      t.endpoint = need_env("FLOE_TEST_RGW_PROXY_ENDPOINT", servers_hint);
      t.control = proxy_control(need_env("FLOE_TEST_RGW_PROXY_CONTROL", servers_hint));
      t.access_key = need_env("FLOE_TEST_RGW_ACCESS_KEY", servers_hint);
      t.secret_key = need_env("FLOE_TEST_RGW_SECRET_KEY", servers_hint);
    } else {
      throw std::runtime_error("FLOE_TEST_S3_TARGET must be moto or rgw, not " + t.name);
    }
    t.control.call("POST", "/verify",
                   "{\"enabled\": true, \"secrets\": {\"" + t.access_key + "\": \"" + t.secret_key + "\"}}");
    t.control.reset();
    return t;
  }
};

}  // namespace floe::test
