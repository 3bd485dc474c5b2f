// The default chain's order and its failures against loopback servers:
// environment keys, web identity, a profile, container credentials and
// IMDS, each beating the next without the losers being contacted; a source
// that worked and then fails; an IMDS that never answers; a profile's
// role_arn with web_identity_token_file on moto through the test proxy.

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wnull-dereference"
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

#include "cred_support.hpp"
#include "servers.hpp"

#include <floe/providers/chain.hpp>
#include <floe/sts/client.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <doctest/doctest.h>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

// Its own namespace: it shares a build unit with other test files
// (tests/integration/meson.build).
namespace credentials_chain_order_it {

namespace asio = boost::asio;
using namespace std::chrono_literals;
using floe::test::servers;

using namespace cred_test;

namespace {

// A credential_process script that leaves a marker file when it runs, so a
// test can tell that a losing source was never contacted.
std::string marker_process(std::string const& home) {
  write_file(home + "/marker.sh",
             "#!/bin/sh\ntouch '" + home + "/process-ran'\n"
             "printf '{\"Version\": 1, \"AccessKeyId\": \"ASIAPROCESS\", \"SecretAccessKey\": \"proc-secret\", "
             "\"SessionToken\": \"proc-token\", \"Expiration\": \"2099-01-01T00:00:00Z\"}'\n",
             true);
  return home + "/marker.sh";
}

// A TCP listener that completes handshakes (the kernel's backlog) and never
// reads or answers: a metadata service that went silent.
struct silent_server {
  int fd = -1;
  std::uint16_t port = 0;
  silent_server() {
    fd = ::socket(AF_INET, SOCK_STREAM, 0);
    REQUIRE(fd >= 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0;
    REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    REQUIRE(::listen(fd, 16) == 0);
    socklen_t len = sizeof a;
    REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0);
    port = ntohs(a.sin_port);
  }
  ~silent_server() { ::close(fd); }
  silent_server(silent_server const&) = delete;
  silent_server& operator=(silent_server const&) = delete;
};

}  // namespace

TEST_CASE("chain order: environment keys beat a profile, which is never run") {
  loop l;
  std::string const home = temp_dir();
  std::filesystem::create_directories(home + "/.aws");
  write_file(home + "/.aws/config", "[profile p]\ncredential_process = " + marker_process(home) + "\n");
  floe::credentials::chain_config cfg;
  cfg.env = env_of({{"HOME", home},
                    {"AWS_EC2_METADATA_DISABLED", "true"},
                    {"AWS_PROFILE", "p"},
                    {"AWS_ACCESS_KEY_ID", "AKIAENVIRONMENT01"},
                    {"AWS_SECRET_ACCESS_KEY", "env-secret"}});
  auto chain = floe::credentials::chain_provider::create(l.io.get_executor(), cfg);
  REQUIRE_MESSAGE(chain.has_value(), (chain ? "" : chain.error().what()));
  CHECK((*chain)->chosen_name() == "environment");
  auto c = l.get(**chain);
  REQUIRE_MESSAGE(c.has_value(), (c ? "" : c.error().what()));
  CHECK(c->access_key_id == "AKIAENVIRONMENT01");
  CHECK_FALSE(std::filesystem::exists(home + "/process-ran"));

  // The same profile without the environment keys: the marker works.
  floe::credentials::chain_config alone;
  alone.env = env_of({{"HOME", home}, {"AWS_EC2_METADATA_DISABLED", "true"}, {"AWS_PROFILE", "p"}});
  auto p = floe::credentials::chain_provider::create(l.io.get_executor(), alone);
  REQUIRE(p.has_value());
  CHECK((*p)->chosen_name() == "profile p");
  auto pc = l.get(**p);
  REQUIRE_MESSAGE(pc.has_value(), (pc ? "" : pc.error().what()));
  CHECK(pc->access_key_id == "ASIAPROCESS");
  CHECK(std::filesystem::exists(home + "/process-ran"));
  std::filesystem::remove_all(home);
}

TEST_CASE("chain order: web identity from the environment beats a profile (moto STS through the proxy)") {
  auto& srv = servers::get();
  srv.control.reset();
  loop l;
  std::string const home = temp_dir();
  std::filesystem::create_directories(home + "/.aws");
  write_file(home + "/.aws/config", "[profile p]\ncredential_process = " + marker_process(home) + "\n");
  write_file(home + "/token", "env-web-identity-token");
  floe::credentials::chain_config cfg;
  cfg.env = env_of({{"HOME", home},
                    {"AWS_EC2_METADATA_DISABLED", "true"},
                    {"AWS_PROFILE", "p"},
                    {"AWS_REGION", "us-east-1"},
                    {"AWS_ENDPOINT_URL_STS", srv.proxy},
                    {"AWS_ROLE_ARN", "arn:aws:iam::123456789012:role/floe-env-wi"},
                    {"AWS_WEB_IDENTITY_TOKEN_FILE", home + "/token"}});
  auto chain = floe::credentials::chain_provider::create(l.io.get_executor(), cfg);
  REQUIRE_MESSAGE(chain.has_value(), (chain ? "" : chain.error().what()));
  CHECK((*chain)->chosen_name() == "web identity");
  auto c = l.get(**chain);
  REQUIRE_MESSAGE(c.has_value(), (c ? "" : c.error().what()));
  CHECK(contains(c->source, "web identity (role arn:aws:iam::123456789012:role/floe-env-wi"));
  CHECK(c->has_session_token());
  CHECK_FALSE(std::filesystem::exists(home + "/process-ran"));
  std::filesystem::remove_all(home);
}

TEST_CASE("chain order: a profile beats container credentials, which are never asked") {
  auto& em = emulator::get();
  em.control("POST", "/_control/config", R"({"container_token": "order-token", "container_fail": false})");
  loop l;
  std::string const home = temp_dir();
  std::filesystem::create_directories(home + "/.aws");
  write_file(home + "/.aws/credentials", "[p]\naws_access_key_id = AKIAPROFILEKEY001\naws_secret_access_key = s\n");
  floe::credentials::chain_config cfg;
  cfg.env = env_of({{"HOME", home},
                    {"AWS_EC2_METADATA_DISABLED", "true"},
                    {"AWS_PROFILE", "p"},
                    {"AWS_CONTAINER_CREDENTIALS_FULL_URI", em.base + "/container/creds"},
                    {"AWS_CONTAINER_AUTHORIZATION_TOKEN", "order-token"}});
  auto const gets0 = em.stat("container_gets");
  auto chain = floe::credentials::chain_provider::create(l.io.get_executor(), cfg);
  REQUIRE_MESSAGE(chain.has_value(), (chain ? "" : chain.error().what()));
  CHECK((*chain)->chosen_name() == "profile p");
  auto c = l.get(**chain);
  REQUIRE_MESSAGE(c.has_value(), (c ? "" : c.error().what()));
  CHECK(c->access_key_id == "AKIAPROFILEKEY001");
  CHECK(em.stat("container_gets") == gets0);
  std::filesystem::remove_all(home);
}

TEST_CASE("chain order: container credentials beat IMDS, which is never asked") {
  auto& em = emulator::get();
  em.control("POST", "/_control/config", R"({"container_token": "order-token", "container_fail": false, "fail": false})");
  loop l;
  std::string const home = temp_dir();
  floe::credentials::chain_config cfg;
  cfg.env = container_and_imds(home, "order-token");
  auto const puts0 = em.stat("token_puts"), roles0 = em.stat("role_gets"), creds0 = em.stat("cred_gets");
  auto const gets0 = em.stat("container_gets");
  auto chain = floe::credentials::chain_provider::create(l.io.get_executor(), cfg);
  REQUIRE_MESSAGE(chain.has_value(), (chain ? "" : chain.error().what()));
  CHECK((*chain)->chosen_name() == "container");
  auto c = l.get(**chain);
  REQUIRE_MESSAGE(c.has_value(), (c ? "" : c.error().what()));
  CHECK(c->access_key_id.rfind("ASIACONTAINER", 0) == 0);
  CHECK(em.stat("container_gets") == gets0 + 1);
  CHECK(em.stat("token_puts") == puts0);
  CHECK(em.stat("role_gets") == roles0);
  CHECK(em.stat("cred_gets") == creds0);
  std::filesystem::remove_all(home);
}

TEST_CASE("a source that worked and then fails: its error, never another source or anonymous") {
  auto& em = emulator::get();
  em.control("POST", "/_control/config", R"({"container_token": "fail-token", "container_fail": false, "fail": false})");
  loop l;
  std::string const home = temp_dir();
  // Container and IMDS both configured: a switch to IMDS would show in its counters.
  floe::credentials::chain_config cfg;
  cfg.env = container_and_imds(home, "fail-token");
  auto chain = floe::credentials::chain_provider::create(l.io.get_executor(), cfg);
  REQUIRE(chain.has_value());
  REQUIRE((*chain)->chosen_name() == "container");
  auto c = l.get(**chain);
  REQUIRE_MESSAGE(c.has_value(), (c ? "" : c.error().what()));
  CHECK((*chain)->has_worked());
  auto const puts0 = em.stat("token_puts"), creds0 = em.stat("cred_gets");

  em.control("POST", "/_control/config", R"({"container_fail": true})");
  (*chain)->invalidate(c->generation);
  auto f = l.get(**chain);
  REQUIRE_FALSE(f.has_value());  // no set at all: not anonymous, not the invalidated set
  CHECK(f.error().code == floe::errc::credentials_unavailable);
  CHECK_MESSAGE(contains(f.error().diag.message, "container credentials"), f.error().diag.message);
  CHECK_MESSAGE(contains(f.error().diag.message, "HTTP 500"), f.error().diag.message);
  CHECK_FALSE(contains(f.error().diag.message, "no credentials found"));
  CHECK((*chain)->chosen_name() == "container");
  CHECK(em.stat("token_puts") == puts0);
  CHECK(em.stat("cred_gets") == creds0);
  // Still failing on the next request too (the cache backs off; it still
  // hands out no set).
  auto again = l.get(**chain);
  CHECK_FALSE(again.has_value());
  CHECK(em.stat("token_puts") == puts0);
  em.control("POST", "/_control/config", R"({"container_fail": false})");
  std::filesystem::remove_all(home);
}

TEST_CASE("IMDS that accepts and never answers: the chain gives up after its 1 s timeout, saying so") {
  silent_server silent;
  loop l;
  std::string const home = temp_dir();
  floe::credentials::chain_config cfg;
  cfg.env = env_of({{"HOME", home}, {"AWS_EC2_METADATA_SERVICE_ENDPOINT", "http://127.0.0.1:" + std::to_string(silent.port)}});
  auto chain = floe::credentials::chain_provider::create(l.io.get_executor(), cfg);
  REQUIRE(chain.has_value());
  CHECK((*chain)->chosen_name() == "IMDS");
  auto const t0 = std::chrono::steady_clock::now();
  auto c = l.get(**chain);
  auto const took = std::chrono::steady_clock::now() - t0;
  REQUIRE_FALSE(c.has_value());
  auto const& m = c.error().diag.message;
  CHECK_MESSAGE(contains(m, "instance metadata"), m);
  CHECK_MESSAGE(contains(m, "timed out after 1000 ms"), m);
  CHECK_MESSAGE(contains(m, "IMDS: "), m);  // and every other source with why it was skipped
  CHECK_MESSAGE(contains(m, "environment: "), m);
  CHECK(took >= 900ms);  // it did wait for the reply
  CHECK_MESSAGE(took < 5s, "took " << std::chrono::duration_cast<std::chrono::milliseconds>(took).count() << " ms");
  std::filesystem::remove_all(home);
}

TEST_CASE("profile role_arn + web_identity_token_file + role_session_name on moto; the token file is read again") {
  auto& srv = servers::get();
  srv.control.reset();
  loop l;
  std::string const home = temp_dir();
  std::filesystem::create_directories(home + "/.aws");
  std::string const token_file = home + "/wi-token";
  write_file(token_file, "profile-web-identity-token-A");
  write_file(home + "/.aws/config", "[profile wi]\nrole_arn = arn:aws:iam::123456789012:role/floe-profile-wi\n"
                                    "web_identity_token_file = " + token_file + "\nrole_session_name = floe-wi-session\n");
  auto env = env_of({{"HOME", home},
                     {"AWS_EC2_METADATA_DISABLED", "true"},
                     {"AWS_PROFILE", "wi"},
                     {"AWS_REGION", "us-east-1"},
                     {"AWS_ENDPOINT_URL_STS", srv.proxy}});
  floe::credentials::chain_config cfg;
  cfg.env = env;
  auto chain = floe::credentials::chain_provider::create(l.io.get_executor(), cfg);
  REQUIRE_MESSAGE(chain.has_value(), (chain ? "" : chain.error().what()));
  CHECK((*chain)->chosen_name() == "profile wi");
  CHECK((*chain)->refreshable());
  auto c = l.get(**chain);
  REQUIRE_MESSAGE(c.has_value(), (c ? "" : c.error().what()));
  CHECK(c->has_session_token());
  CHECK(contains(c->source, "role arn:aws:iam::123456789012:role/floe-profile-wi"));
  CHECK(contains(c->source, token_file));

  // The session name reached STS: the caller is the assumed role's session.
  floe::sts::client_config sc;
  sc.env = env;
  auto sts = floe::sts::client::create(l.io.get_executor(), sc);
  REQUIRE(sts.has_value());
  auto who = l.run([&]() -> asio::awaitable<floe::result<floe::sts::caller_identity>> {
    floe::credentials::credentials const caller = *c;
    co_return co_await (*sts)->async_get_caller_identity(caller, asio::use_awaitable);
  });
  REQUIRE_MESSAGE(who.has_value(), (who ? "" : who.error().what()));
  CHECK_MESSAGE(contains(who->arn, "assumed-role/floe-profile-wi/floe-wi-session"), who->arn);

  // The token file is read again on refresh: emptied, the refresh fails
  // saying so (the token never appears)...
  write_file(token_file, "  \n");
  (*chain)->invalidate(c->generation);
  auto empty = l.get(**chain);
  REQUIRE_FALSE(empty.has_value());
  CHECK_MESSAGE(contains(empty.error().diag.message, "is empty"), empty.error().diag.message);
  // ...and rewritten, the next refresh succeeds with it.
  write_file(token_file, "profile-web-identity-token-B");
  floe::result<floe::credentials::credentials> healed = floe::error(floe::errc::credentials_unavailable);
  auto const deadline = std::chrono::steady_clock::now() + 30s;
  while (!(healed = l.get(**chain)) && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(20ms);
  REQUIRE_MESSAGE(healed.has_value(), (healed ? "" : healed.error().what()));
  CHECK(healed->generation > c->generation);
  CHECK(healed->access_key_id != c->access_key_id);
  std::filesystem::remove_all(home);
}

}  // namespace credentials_chain_order_it
