#pragma once
// A private instance of the test proxy (tests/support/proxy) for this test
// program: a reverse proxy with a TLS listener in front of the moto that
// scripts/test started, listening on 127.0.0.1-127.0.0.4 (each address can
// be set to blackhole or refuse), and a forward (CONNECT) proxy. Private so that the
// connection and request counters this suite asserts are not shared with
// tests running at the same time.

#include "child_process.hpp"
#include "proxy_control.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace floe::test {

inline std::string need_env(char const* name) {
  char const* v = std::getenv(name);
  if (!v || !*v)
    throw std::runtime_error(std::string(name) + " is not set: run scripts/test, which starts moto and the test proxy");
  return v;
}


struct servers {
  std::string proxy;          // http://127.0.0.1:P
  std::string proxy_tls;      // https://127.0.0.1:T
  std::string ca_file;        // the CA of the TLS listener
  std::uint16_t proxy_port = 0;
  std::uint16_t tls_port = 0;
  proxy_control control{""};
  std::string forward;        // http://127.0.0.1:F
  proxy_control forward_control{""};

  static servers& get() {
    static servers s = start();
    return s;
  }

 private:
  static servers start() {
    need_env("FLOE_TEST_PROXY_ENDPOINT");  // scripts/test ran servers.py
    std::string const moto = need_env("FLOE_TEST_MOTO_ENDPOINT");
    std::string const root = need_env("FLOE_SOURCE_ROOT");
    std::string const proxy_dir = root + "/tests/support/proxy";
    char tmpl[] = "/tmp/floe-http-test-XXXXXX";
    if (!::mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
    std::string const dir = tmpl;
    std::string const certs_cmd = "python3 '" + proxy_dir + "' certs '" + dir + "' >/dev/null";
    if (std::system(certs_cmd.c_str()) != 0) throw std::runtime_error("cannot make test certificates: " + certs_cmd);
    servers s;
    s.ca_file = dir + "/ca.pem";
    static child_process reverse, fwd;
    auto const info = reverse.start({"python3", proxy_dir, "--upstream", moto, "--tls-port", "0", "--tls-cert",
                                     dir + "/server.pem", "--tls-key", dir + "/server.key", "--log",
                                     dir + "/proxy.log", "--addresses", "127.0.0.2,127.0.0.3,127.0.0.4"});
    s.proxy_port = static_cast<std::uint16_t>(json_int(info, "port"));
    s.tls_port = static_cast<std::uint16_t>(json_int(info, "tls_port"));
    s.proxy = "http://127.0.0.1:" + std::to_string(s.proxy_port);
    s.proxy_tls = "https://127.0.0.1:" + std::to_string(s.tls_port);
    s.control = proxy_control("http://127.0.0.1:" + std::to_string(json_int(info, "control_port")));
    auto const finfo = fwd.start({"python3", proxy_dir, "forward", "--log", dir + "/forward-proxy.log"});
    s.forward = "http://127.0.0.1:" + std::to_string(json_int(finfo, "port"));
    s.forward_control = proxy_control("http://127.0.0.1:" + std::to_string(json_int(finfo, "control_port")));
    return s;
  }
};

}  // namespace floe::test
