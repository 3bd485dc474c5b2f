#include "env_map.hpp"

#include <floe/credentials/environment.hpp>

#include <doctest/doctest.h>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace credentials_environment_test {

using namespace floe::credentials;
using namespace std::chrono;

TEST_CASE("environment credentials: key id, secret, session token and expiry") {
  auto r = credentials_from_environment(env_of({{"AWS_ACCESS_KEY_ID", "AKIDENV"},
                                                {"AWS_SECRET_ACCESS_KEY", "secret/+="},
                                                {"AWS_SESSION_TOKEN", "tok"},
                                                {"AWS_CREDENTIAL_EXPIRATION", "2031-06-07T08:09:10Z"}}));
  REQUIRE(r.has_value());
  REQUIRE(r->has_value());
  auto const& c = **r;
  CHECK(c.access_key_id == "AKIDENV");
  CHECK(c.secret_access_key.reveal() == "secret/+=");
  CHECK(c.session_token.reveal() == "tok");
  CHECK(c.expiry == sys_days{2031y / 6 / 7} + 8h + 9min + 10s);
  CHECK(c.source == "environment");
}

TEST_CASE("environment credentials: nothing set, or only empty values, is not configured") {
  CHECK_FALSE(credentials_from_environment(env_of({}))->has_value());
  CHECK_FALSE(credentials_from_environment(env_of({{"AWS_ACCESS_KEY_ID", ""}, {"AWS_SECRET_ACCESS_KEY", ""}}))
                  ->has_value());
  CHECK_FALSE(credentials_from_environment(empty_environment())->has_value());
  CHECK_FALSE(credentials_from_environment(env_lookup{})->has_value());
}

TEST_CASE("environment credentials: half a pair is an error naming the missing variable") {
  auto a = credentials_from_environment(env_of({{"AWS_ACCESS_KEY_ID", "AKID"}}));
  REQUIRE(a.has_error());
  CHECK(a.error().code == floe::errc::invalid_argument);
  CHECK(a.error().diag.message.find("AWS_SECRET_ACCESS_KEY is not") != std::string::npos);
  auto b = credentials_from_environment(env_of({{"AWS_SECRET_ACCESS_KEY", "s"}}));
  REQUIRE(b.has_error());
  CHECK(b.error().diag.message.find("AWS_ACCESS_KEY_ID is not") != std::string::npos);
}

TEST_CASE("environment credentials: the old AWS_SECURITY_TOKEN is read when AWS_SESSION_TOKEN is unset") {
  auto r = credentials_from_environment(
      env_of({{"AWS_ACCESS_KEY_ID", "A"}, {"AWS_SECRET_ACCESS_KEY", "S"}, {"AWS_SECURITY_TOKEN", "old"}}));
  CHECK((*r)->session_token.reveal() == "old");
  auto both = credentials_from_environment(env_of({{"AWS_ACCESS_KEY_ID", "A"},
                                                   {"AWS_SECRET_ACCESS_KEY", "S"},
                                                   {"AWS_SESSION_TOKEN", "new"},
                                                   {"AWS_SECURITY_TOKEN", "old"}}));
  CHECK((*both)->session_token.reveal() == "new");
}

TEST_CASE("environment credentials: a bad expiry or a secret with a line break is refused without echoing the secret") {
  auto r = credentials_from_environment(
      env_of({{"AWS_ACCESS_KEY_ID", "A"}, {"AWS_SECRET_ACCESS_KEY", "S"}, {"AWS_CREDENTIAL_EXPIRATION", "tomorrow\n"}}));
  REQUIRE(r.has_error());
  CHECK(r.error().diag.message.find("AWS_CREDENTIAL_EXPIRATION 'tomorrow\\x0A'") != std::string::npos);
  auto s = credentials_from_environment(env_of({{"AWS_ACCESS_KEY_ID", "A"}, {"AWS_SECRET_ACCESS_KEY", "TOPSECRET\r"}}));
  REQUIRE(s.has_error());
  CHECK(s.error().diag.message.find("AWS_SECRET_ACCESS_KEY") != std::string::npos);
  CHECK(s.error().diag.message.find("TOPSECRET") == std::string::npos);
}

TEST_CASE("non_empty treats an empty variable as unset") {
  auto env = env_of({{"A", ""}, {"B", "x"}});
  CHECK_FALSE(non_empty(env, "A"));
  CHECK(non_empty(env, "B") == "x");
  CHECK_FALSE(non_empty(env, "C"));
}

}  // namespace credentials_environment_test
