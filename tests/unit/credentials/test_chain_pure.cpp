// The pure parts of the credential chain: profile plans (roles, sources,
// cycles), credential_process command splitting and JSON, the container URL
// rule, the IMDS settings from the environment.

#include "env_map.hpp"
#include "shared_config_of.hpp"

#include <floe/providers/container.hpp>
#include <floe/providers/imds.hpp>
#include <floe/credentials/json_credentials.hpp>
#include <floe/credentials/process.hpp>
#include <floe/credentials/profile_chain.hpp>
#include <floe/credentials/shared_files.hpp>

#include <doctest/doctest.h>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace credentials_chain_pure_test {

using namespace floe::credentials;

TEST_CASE("profile plan: static keys, credentials file before config file") {
  auto f = shared_config_of("[profile dev]\naws_access_key_id = AKIACONFIG\naws_secret_access_key = s1\n",
                            "[dev]\naws_access_key_id = AKIACREDS\naws_secret_access_key = s2\n"
                            "aws_session_token = tok\n");
  auto p = resolve_profile_plan(f, "dev");
  REQUIRE(p.has_value());
  CHECK(p->base == profile_base_kind::static_keys);
  REQUIRE(p->static_keys);
  CHECK(p->static_keys->access_key_id == "AKIACREDS");
  CHECK(p->static_keys->has_session_token());
  CHECK(p->roles.empty());
}

TEST_CASE("profile plan: a source_profile chain of any depth, innermost role first") {
  auto f = shared_config_of(
      "[profile top]\nrole_arn = arn:aws:iam::1:role/top\nsource_profile = mid\nrole_session_name = s-top\n"
      "external_id = ext\nduration_seconds = 1800\n"
      "[profile mid]\nrole_arn = arn:aws:iam::1:role/mid\nsource_profile = base\n"
      "[profile base]\naws_access_key_id = AKIABASE\naws_secret_access_key = s\n");
  auto p = resolve_profile_plan(f, "top");
  REQUIRE_MESSAGE(p.has_value(), (p ? "" : p.error().diag.message));
  CHECK(p->base == profile_base_kind::static_keys);
  CHECK(p->base_profile == "base");
  REQUIRE(p->roles.size() == 2);
  CHECK(p->roles[0].role_arn == "arn:aws:iam::1:role/mid");
  CHECK(p->roles[1].role_arn == "arn:aws:iam::1:role/top");
  CHECK(p->roles[1].session_name == "s-top");
  CHECK(p->roles[1].external_id == "ext");
  CHECK(p->roles[1].duration == std::chrono::seconds(1800));
  CHECK(p->path == std::vector<std::string>{"top", "mid", "base"});
  CHECK(contains(p->describe(), "role arn:aws:iam::1:role/top"));
}

TEST_CASE("profile plan: a cycle is an error that names it") {
  auto f = shared_config_of(
      "[profile a]\nrole_arn = arn:aws:iam::1:role/a\nsource_profile = b\n"
      "[profile b]\nrole_arn = arn:aws:iam::1:role/b\nsource_profile = c\n"
      "[profile c]\nrole_arn = arn:aws:iam::1:role/c\nsource_profile = a\n");
  auto p = resolve_profile_plan(f, "a");
  REQUIRE_FALSE(p.has_value());
  CHECK(p.error().code == floe::errc::invalid_argument);
  CHECK_MESSAGE(contains(p.error().diag.message, "a -> b -> c -> a"), p.error().diag.message);
}

TEST_CASE("profile plan: a profile may name itself only when it has static keys") {
  auto ok = shared_config_of("[profile s]\nrole_arn = arn:aws:iam::1:role/s\nsource_profile = s\n"
                             "aws_access_key_id = AKIASELF\naws_secret_access_key = x\n");
  auto p = resolve_profile_plan(ok, "s");
  REQUIRE(p.has_value());
  CHECK(p->base == profile_base_kind::static_keys);
  CHECK(p->roles.size() == 1);
  auto bad = shared_config_of("[profile s]\nrole_arn = arn:aws:iam::1:role/s\nsource_profile = s\n");
  auto q = resolve_profile_plan(bad, "s");
  REQUIRE_FALSE(q.has_value());
  CHECK(contains(q.error().diag.message, "cycle: s -> s"));
}

TEST_CASE("profile plan: a source profile's static keys win over its own role_arn") {
  auto f = shared_config_of("[profile top]\nrole_arn = arn:aws:iam::1:role/top\nsource_profile = src\n"
                            "[profile src]\nrole_arn = arn:aws:iam::1:role/ignored\nsource_profile = top\n"
                            "aws_access_key_id = AKIASRC\naws_secret_access_key = x\n");
  auto p = resolve_profile_plan(f, "top");
  REQUIRE(p.has_value());
  CHECK(p->roles.size() == 1);
  CHECK(p->static_keys->access_key_id == "AKIASRC");
}

TEST_CASE("profile plan: web identity, credential_process, credential_source") {
  auto f = shared_config_of(
      "[profile wi]\nrole_arn = arn:aws:iam::1:role/wi\nweb_identity_token_file = /var/t\nrole_session_name = n\n"
      "[profile proc]\ncredential_process = /bin/tool --flag \"a b\"\n"
      "[profile ecs]\nrole_arn = arn:aws:iam::1:role/e\ncredential_source = EcsContainer\n"
      "[profile ec2]\nrole_arn = arn:aws:iam::1:role/i\ncredential_source = Ec2InstanceMetadata\n"
      "[profile env]\nrole_arn = arn:aws:iam::1:role/v\ncredential_source = Environment\n"
      "[profile onproc]\nrole_arn = arn:aws:iam::1:role/p\nsource_profile = proc\n");
  auto wi = resolve_profile_plan(f, "wi");
  REQUIRE(wi.has_value());
  CHECK(wi->base == profile_base_kind::web_identity);
  CHECK(wi->web_identity_token_file == "/var/t");
  CHECK(wi->web_identity_session_name == "n");
  CHECK(wi->roles.empty());
  auto pr = resolve_profile_plan(f, "proc");
  REQUIRE(pr.has_value());
  CHECK(pr->base == profile_base_kind::process);
  CHECK(pr->process_command == "/bin/tool --flag \"a b\"");
  CHECK(resolve_profile_plan(f, "ecs")->base == profile_base_kind::container);
  CHECK(resolve_profile_plan(f, "ec2")->base == profile_base_kind::imds);
  CHECK(resolve_profile_plan(f, "env")->base == profile_base_kind::environment);
  auto op = resolve_profile_plan(f, "onproc");
  REQUIRE(op.has_value());
  CHECK(op->base == profile_base_kind::process);
  CHECK(op->roles.size() == 1);
}

TEST_CASE("profile plan: configured but broken") {
  auto f = shared_config_of("[profile both]\nrole_arn = r\nsource_profile = x\ncredential_source = Environment\n"
                            "[profile x]\naws_access_key_id = A\naws_secret_access_key = B\n"
                            "[profile nosrc]\nrole_arn = arn:aws:iam::1:role/n\n"
                            "[profile missing]\nrole_arn = arn:aws:iam::1:role/m\nsource_profile = ghost\n"
                            "[profile badcs]\nrole_arn = arn:aws:iam::1:role/b\ncredential_source = Moon\n"
                            "[profile baddur]\nrole_arn = arn:aws:iam::1:role/d\nsource_profile = x\n"
                            "duration_seconds = 5\n"
                            "[profile empty]\nregion = eu-west-1\n");
  for (auto name : {"both", "nosrc", "missing", "badcs", "baddur"}) {
    auto p = resolve_profile_plan(f, name);
    REQUIRE_FALSE(p.has_value());
    CHECK_MESSAGE(p.error().code == floe::errc::invalid_argument, name);
  }
  CHECK(contains(resolve_profile_plan(f, "missing").error().diag.message, "ghost"));
  auto e = resolve_profile_plan(f, "empty");
  REQUIRE_FALSE(e.has_value());
  CHECK(e.error().code == floe::errc::credentials_unavailable);
  CHECK(resolve_profile_plan(f, "nowhere").error().code == floe::errc::credentials_unavailable);
}

TEST_CASE("credential_process: the command is split like shlex.split, no shell") {
  auto w = split_command_line(R"(/usr/bin/tool --name 'a b' "c \"d\" $x" e\ f  )");
  REQUIRE(w.has_value());
  CHECK(*w == std::vector<std::string>{"/usr/bin/tool", "--name", "a b", "c \"d\" $x", "e f"});
  CHECK(*split_command_line("a''b \"\"") == std::vector<std::string>{"ab", ""});
  CHECK_FALSE(split_command_line("tool 'open").has_value());
  CHECK_FALSE(split_command_line("tool \"open").has_value());
  CHECK_FALSE(split_command_line("tool \\").has_value());
  CHECK_FALSE(split_command_line("   ").has_value());
}

TEST_CASE("credential_process: the JSON contract") {
  auto ok = parse_json_credentials(
      R"({"Version": 1, "AccessKeyId": "ASIAPROC", "SecretAccessKey": "sek", "SessionToken": "tok",
          "Expiration": "2030-01-02T03:04:05Z"})",
      json_credentials_kind::process, "credential_process t");
  REQUIRE(ok.has_value());
  CHECK(ok->access_key_id == "ASIAPROC");
  CHECK(ok->secret_access_key.reveal() == "sek");
  CHECK(ok->session_token.reveal() == "tok");
  REQUIRE(ok->expiry);
  CHECK(format_iso8601(*ok->expiry) == "2030-01-02T03:04:05Z");
  auto longterm = parse_json_credentials(R"({"Version":1,"AccessKeyId":"AKIA","SecretAccessKey":"s"})",
                                         json_credentials_kind::process, "p");
  REQUIRE(longterm.has_value());
  CHECK_FALSE(longterm->expiry);
  CHECK_FALSE(longterm->has_session_token());
  for (char const* bad : {R"({"Version":2,"AccessKeyId":"A","SecretAccessKey":"s"})",
                          R"({"AccessKeyId":"A","SecretAccessKey":"s"})",
                          R"({"Version":1,"SecretAccessKey":"s"})",
                          R"({"Version":1,"AccessKeyId":"A","SecretAccessKey":""})",
                          R"({"Version":1,"AccessKeyId":"A","SecretAccessKey":"s","Expiration":"soon"})",
                          R"({"Version":1,"AccessKeyId":7,"SecretAccessKey":"s"})", "[1]", "not json"}) {
    auto r = parse_json_credentials(bad, json_credentials_kind::process, "p");
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == floe::errc::malformed_reply);
  }
  // A message never quotes a value.
  auto r = parse_json_credentials(R"({"Version":1,"AccessKeyId":"A","SecretAccessKey":"sekrit value"})",
                                  json_credentials_kind::process, "p");
  REQUIRE_FALSE(r.has_value());
  CHECK_FALSE(contains(r.error().diag.message, "sekrit"));
}

TEST_CASE("container and IMDS documents: Token, and IMDS's Code") {
  auto c = parse_json_credentials(R"({"AccessKeyId":"ASIAC","SecretAccessKey":"s","Token":"t","Expiration":"2030-01-01T00:00:00Z","RoleArn":"x"})",
                                  json_credentials_kind::container, "c");
  REQUIRE(c.has_value());
  CHECK(c->session_token.reveal() == "t");
  auto i = parse_json_credentials(R"({"Code":"Success","Type":"AWS-HMAC","AccessKeyId":"ASIAI","SecretAccessKey":"s","Token":"t","Expiration":"2030-01-01T00:00:00Z"})",
                                  json_credentials_kind::imds, "i");
  REQUIRE(i.has_value());
  auto f = parse_json_credentials(R"({"Code":"Failure","AccessKeyId":"A","SecretAccessKey":"s"})",
                                  json_credentials_kind::imds, "i");
  CHECK_FALSE(f.has_value());
}

TEST_CASE("container URL rule: https anywhere, plain http only to loopback and the task addresses") {
  for (auto ok : {"https://creds.example.com/x", "http://127.0.0.1:8080/c", "http://127.9.9.9/c", "http://localhost/c",
                  "http://[::1]:9/c", "http://169.254.170.2/v2/c", "http://169.254.170.23/v1/c",
                  "http://[fd00:ec2::23]/c"})
    CHECK_MESSAGE(check_container_url(ok).has_value(), ok);
  for (auto bad : {"http://example.com/c", "http://10.0.0.1/c", "http://169.254.169.254/c", "http://[fd00:ec2::24]/c",
                   "ftp://127.0.0.1/c", "not a url"})
    CHECK_MESSAGE(!check_container_url(bad).has_value(), bad);
}

TEST_CASE("container settings from the environment") {
  auto rel = container_from_environment(env_of({{"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "/v2/creds/abc"},
                                                {"AWS_CONTAINER_CREDENTIALS_FULL_URI", "http://example.com/"},
                                                {"AWS_CONTAINER_AUTHORIZATION_TOKEN", "tok"}}));
  REQUIRE(rel.has_value());
  REQUIRE(rel->has_value());
  CHECK((*rel)->url == "http://169.254.170.2/v2/creds/abc");
  CHECK((*rel)->token == "tok");
  auto file = container_from_environment(env_of({{"AWS_CONTAINER_CREDENTIALS_FULL_URI", "http://127.0.0.1:1/c"},
                                                 {"AWS_CONTAINER_AUTHORIZATION_TOKEN", "tok"},
                                                 {"AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", "/t"}}));
  REQUIRE(file.has_value());
  CHECK((*file)->token_file == "/t");
  CHECK((*file)->token.empty());
  auto refused = container_from_environment(env_of({{"AWS_CONTAINER_CREDENTIALS_FULL_URI", "http://example.com/c"}}));
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error().code == floe::errc::invalid_argument);
  auto none = container_from_environment(env_of({}));
  REQUIRE(none.has_value());
  CHECK_FALSE(none->has_value());
}

TEST_CASE("IMDS settings from the environment") {
  auto off = imds_from_environment(env_of({{"AWS_EC2_METADATA_DISABLED", "TRUE"}}));
  REQUIRE(off.has_value());
  CHECK_FALSE(off->has_value());
  auto def = imds_from_environment(env_of({}));
  REQUIRE(def.has_value());
  CHECK((*def)->endpoint == "http://169.254.169.254");
  auto v6 = imds_from_environment(env_of({{"AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE", "IPv6"}}));
  CHECK((*v6)->endpoint == "http://[fd00:ec2::254]");
  auto custom = imds_from_environment(env_of({{"AWS_EC2_METADATA_SERVICE_ENDPOINT", "http://127.0.0.1:9999/"}}));
  CHECK((*custom)->endpoint == "http://127.0.0.1:9999");
  CHECK_FALSE(imds_from_environment(env_of({{"AWS_EC2_METADATA_SERVICE_ENDPOINT", "nope"}})).has_value());
  CHECK_FALSE(imds_from_environment(env_of({{"AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE", "IPv5"}})).has_value());
  CHECK((*def)->attempts == 1);  // off EC2 each try costs a timeout: one unless asked
  auto three = imds_from_environment(env_of({{"AWS_METADATA_SERVICE_NUM_ATTEMPTS", "3"}}));
  REQUIRE(three.has_value());
  CHECK((*three)->attempts == 3);
  for (char const* bad : {"0", "11", "two", "-1", "1.5"}) {
    auto b = imds_from_environment(env_of({{"AWS_METADATA_SERVICE_NUM_ATTEMPTS", bad}}));
    REQUIRE_FALSE(b.has_value());
    CHECK(b.error().diag.message.find("AWS_METADATA_SERVICE_NUM_ATTEMPTS") != std::string::npos);
  }
}

}  // namespace credentials_chain_pure_test
