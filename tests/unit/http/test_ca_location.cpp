// choose_ca_location: the order of --ca-bundle, AWS_CA_BUNDLE,
// SSL_CERT_FILE/SSL_CERT_DIR and the system's locations, over a map standing
// for the environment and a set standing for the file system.
#include <floe/http/tls.hpp>

#include <doctest/doctest.h>

#include <map>
#include <set>
#include <string>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace http_ca_location_test {

namespace http = floe::http;

namespace {

struct world {
  std::map<std::string, std::string, std::less<>> vars;
  std::set<std::string> paths;

  http::env_lookup env() const {
    return [this](std::string_view name) -> std::optional<std::string> {
      auto it = vars.find(name);
      if (it == vars.end()) return std::nullopt;
      return it->second;
    };
  }
  http::path_exists exists() const {
    return [this](std::string const& p) { return paths.count(p) != 0; };
  }
  http::ca_location choose(http::tls_config const& cfg = {}, std::string_view lib_file = {},
                           std::string_view lib_dir = {}) const {
    return http::choose_ca_location(cfg, env(), exists(), lib_file, lib_dir);
  }
};

std::string const debian = "/etc/ssl/certs/ca-certificates.crt";
std::string const rhel = "/etc/pki/tls/certs/ca-bundle.crt";
std::string const rhel_extracted = "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem";
std::string const suse = "/etc/ssl/ca-bundle.pem";
std::string const alpine = "/etc/ssl/cert.pem";

}  // namespace

TEST_CASE("the explicit bundle wins over every variable and every system file") {
  world w;
  w.vars = {{"AWS_CA_BUNDLE", "/aws.pem"}, {"SSL_CERT_FILE", "/ssl.pem"}, {"SSL_CERT_DIR", "/ssl.d"}};
  w.paths = {debian, "/mine.pem"};
  http::tls_config cfg;
  cfg.ca_file = "/mine.pem";
  auto c = w.choose(cfg);
  CHECK(c.file == "/mine.pem");
  CHECK(c.dir.empty());
  CHECK(c.origin == "tls_config::ca_file");
}

TEST_CASE("AWS_CA_BUNDLE comes before SSL_CERT_FILE and SSL_CERT_DIR") {
  world w;
  w.vars = {{"AWS_CA_BUNDLE", "/aws.pem"}, {"SSL_CERT_FILE", "/ssl.pem"}, {"SSL_CERT_DIR", "/ssl.d"}};
  w.paths = {debian};
  auto c = w.choose();
  CHECK(c.file == "/aws.pem");
  CHECK(c.dir.empty());
  CHECK(c.origin == "AWS_CA_BUNDLE");
}

TEST_CASE("SSL_CERT_FILE and SSL_CERT_DIR, alone or together, as OpenSSL reads them") {
  world w;
  w.paths = {debian};
  w.vars = {{"SSL_CERT_FILE", "/ssl.pem"}};
  auto f = w.choose();
  CHECK(f.file == "/ssl.pem");
  CHECK(f.dir.empty());
  CHECK(f.origin == "SSL_CERT_FILE");

  w.vars = {{"SSL_CERT_DIR", "/ssl.d"}};
  auto d = w.choose();
  CHECK(d.file.empty());
  CHECK(d.dir == "/ssl.d");
  CHECK(d.origin == "SSL_CERT_DIR");

  w.vars = {{"SSL_CERT_FILE", "/ssl.pem"}, {"SSL_CERT_DIR", "/ssl.d"}};
  auto both = w.choose();
  CHECK(both.file == "/ssl.pem");
  CHECK(both.dir == "/ssl.d");
  CHECK(both.origin == "SSL_CERT_FILE and SSL_CERT_DIR");
}

TEST_CASE("a configured location is taken as given even when it does not exist") {
  // Loading it then fails naming it; quietly trusting the system's set
  // instead would hide the mistake.
  world w;
  w.paths = {debian};
  w.vars = {{"SSL_CERT_FILE", "/no/such.pem"}};
  CHECK(w.choose().file == "/no/such.pem");
  w.vars = {{"AWS_CA_BUNDLE", "/no/such.pem"}};
  CHECK(w.choose().file == "/no/such.pem");
}

TEST_CASE("empty variables count as unset") {
  world w;
  w.vars = {{"AWS_CA_BUNDLE", ""}, {"SSL_CERT_FILE", ""}, {"SSL_CERT_DIR", ""}};
  w.paths = {alpine};
  auto c = w.choose();
  CHECK(c.file == alpine);
  CHECK(c.origin == "the system's CA bundle");
}

TEST_CASE("use_env_ca_bundle = false reads no variable at all") {
  world w;
  w.vars = {{"AWS_CA_BUNDLE", "/aws.pem"}, {"SSL_CERT_FILE", "/ssl.pem"}, {"SSL_CERT_DIR", "/ssl.d"}};
  w.paths = {rhel};
  http::tls_config cfg;
  cfg.use_env_ca_bundle = false;
  auto c = w.choose(cfg);
  CHECK(c.file == rhel);
  CHECK(c.dir.empty());
}

TEST_CASE("each system's own bundle is found where only it exists") {
  for (auto const& path : {debian, rhel, rhel_extracted, suse, alpine}) {
    CAPTURE(path);
    world w;
    w.paths = {path};
    auto c = w.choose({}, "/usr/lib/ssl/cert.pem", "/usr/lib/ssl/certs");
    CHECK(c.file == path);
    CHECK(c.dir.empty());
  }
}

TEST_CASE("the first existing location in the documented order wins") {
  auto const& files = http::system_ca_files();
  REQUIRE(files.size() >= 5);
  CHECK(files[0] == debian);
  CHECK(files[1] == rhel);
  CHECK(files[2] == rhel_extracted);
  CHECK(files[3] == suse);
  CHECK(files[4] == alpine);
  // With all of them present, each later one is chosen only once those
  // before it are gone.
  world w;
  for (auto const& f : files) w.paths.insert(f);
  for (auto const& f : files) {
    CAPTURE(f);
    CHECK(w.choose().file == f);
    w.paths.erase(f);
  }
}

TEST_CASE("OpenSSL's compiled-in bundle comes after every system bundle, directories after every bundle") {
  world w;
  w.paths = {"/usr/lib/ssl/cert.pem", "/etc/ssl/certs", "/usr/lib/ssl/certs"};
  auto lib = w.choose({}, "/usr/lib/ssl/cert.pem", "/usr/lib/ssl/certs");
  CHECK(lib.file == "/usr/lib/ssl/cert.pem");
  CHECK(lib.origin == "OpenSSL's default CA bundle");

  w.paths.insert(alpine);
  CHECK(w.choose({}, "/usr/lib/ssl/cert.pem", "/usr/lib/ssl/certs").file == alpine);

  w.paths = {"/etc/ssl/certs", "/usr/lib/ssl/certs"};
  auto dir = w.choose({}, "/usr/lib/ssl/cert.pem", "/usr/lib/ssl/certs");
  CHECK(dir.file.empty());
  CHECK(dir.dir == "/etc/ssl/certs");
  CHECK(dir.origin == "the system's CA directory");

  w.paths = {"/usr/lib/ssl/certs"};
  auto libdir = w.choose({}, "/usr/lib/ssl/cert.pem", "/usr/lib/ssl/certs");
  CHECK(libdir.dir == "/usr/lib/ssl/certs");
  CHECK(libdir.origin == "OpenSSL's default CA directory");
}

TEST_CASE("nothing anywhere: not found") {
  world w;
  auto c = w.choose({}, "/usr/lib/ssl/cert.pem", "/usr/lib/ssl/certs");
  CHECK_FALSE(c.found());
  CHECK(c.file.empty());
  CHECK(c.dir.empty());
}

TEST_CASE("make_tls_context: a missing configured bundle is an error naming it and its origin") {
  http::tls_config cfg;
  auto env = [](std::string_view name) -> std::optional<std::string> {
    if (name == "SSL_CERT_FILE") return std::string("/nonexistent/floe-test-ca.pem");
    return std::nullopt;
  };
  auto ctx = http::make_tls_context(cfg, env);
  REQUIRE(ctx.has_error());
  CHECK(ctx.error().code == floe::errc::invalid_argument);
  CHECK(ctx.error().diag.message.find("/nonexistent/floe-test-ca.pem") != std::string::npos);
  CHECK(ctx.error().diag.message.find("SSL_CERT_FILE") != std::string::npos);
}

}  // namespace http_ca_location_test
