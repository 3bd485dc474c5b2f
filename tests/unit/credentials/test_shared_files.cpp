#include "env_map.hpp"

#include <floe/credentials/shared_files.hpp>

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace credentials_shared_files_test {

using namespace floe::credentials;
namespace fs = std::filesystem;

namespace {
struct temp_home {
  fs::path dir;
  temp_home() {
    std::string tmpl = (fs::temp_directory_path() / "floe-cred-XXXXXX").string();
    REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    dir = tmpl;
    fs::create_directories(dir / ".aws");
  }
  ~temp_home() {
    std::error_code ec;
    fs::permissions(dir / ".aws", fs::perms::owner_all, ec);
    fs::remove_all(dir, ec);
  }
  void write(fs::path const& rel, std::string_view text) const {
    std::ofstream f(dir / rel, std::ios::binary);
    f << text;
  }
  std::string home() const { return dir.string(); }
};
}  // namespace

TEST_CASE("locate: caller > AWS_PROFILE > AWS_DEFAULT_PROFILE > default; files from HOME or the variables") {
  auto w = locate_shared_files({}, env_of({{"HOME", "/home/u/"}}));
  CHECK(w.profile == "default");
  CHECK_FALSE(w.explicit_profile());
  CHECK(w.config_file == "/home/u/.aws/config");
  CHECK(w.credentials_file == "/home/u/.aws/credentials");

  w = locate_shared_files({}, env_of({{"HOME", "/h"}, {"AWS_DEFAULT_PROFILE", "old"}}));
  CHECK(w.profile == "old");
  CHECK(w.profile_source == "AWS_DEFAULT_PROFILE");
  w = locate_shared_files({}, env_of({{"AWS_PROFILE", "new"}, {"AWS_DEFAULT_PROFILE", "old"}}));
  CHECK(w.profile == "new");
  CHECK(w.explicit_profile());
  w = locate_shared_files({"mine", "", ""}, env_of({{"AWS_PROFILE", "new"}}));
  CHECK(w.profile == "mine");
  CHECK(w.profile_source == "caller");

  w = locate_shared_files({}, env_of({{"HOME", "/h"},
                                      {"AWS_CONFIG_FILE", "~/cfg"},
                                      {"AWS_SHARED_CREDENTIALS_FILE", "/etc/creds"},
                                      {"AWS_PROFILE", ""}}));
  CHECK(w.profile == "default");
  CHECK(w.config_file == "/h/cfg");
  CHECK(w.credentials_file == "/etc/creds");
  w = locate_shared_files({"", "/c", "~/k"}, env_of({{"HOME", "/h"}, {"AWS_CONFIG_FILE", "/other"}}));
  CHECK(w.config_file == "/c");
  CHECK(w.credentials_file == "/h/k");

  w = locate_shared_files({}, env_of({}));
  CHECK(w.config_file.empty());
  CHECK(w.credentials_file.empty());
}

TEST_CASE("shared files: keys read from a temporary HOME, region from the config file") {
  temp_home h;
  h.write(".aws/credentials", "[default]\r\naws_access_key_id = AKIDFILE\r\naws_secret_access_key = s3cr3t\r\n");
  h.write(".aws/config", "[default]\nregion = eu-central-1\n");
  auto env = env_of({{"HOME", h.home()}});
  auto c = credentials_from_shared_files({}, env);
  REQUIRE(c.has_value());
  CHECK(c->access_key_id == "AKIDFILE");
  CHECK(c->secret_access_key.reveal() == "s3cr3t");
  auto cfg = load_shared_config(locate_shared_files({}, env));
  REQUIRE(cfg.has_value());
  CHECK(cfg->find_profile("default")->get("region") == "eu-central-1");
}

TEST_CASE("shared files: missing files are absent, not errors; a named profile must exist") {
  temp_home h;
  auto env = env_of({{"HOME", h.home()}});
  auto c = credentials_from_shared_files({}, env);
  REQUIRE(c.has_error());
  CHECK(c.error().code == floe::errc::credentials_unavailable);
  auto named = credentials_from_shared_files({}, env_of({{"HOME", h.home()}, {"AWS_PROFILE", "prod"}}));
  REQUIRE(named.has_error());
  CHECK(named.error().code == floe::errc::invalid_argument);
  CHECK(named.error().diag.message.find("profile 'prod' is not defined") == 0);
  CHECK(named.error().diag.message.find("(named by AWS_PROFILE)") != std::string::npos);
}

TEST_CASE("shared files: a parse error names the file and line") {
  temp_home h;
  h.write(".aws/config", "[default]\nregion = a\nregion = b\n");
  auto c = credentials_from_shared_files({}, env_of({{"HOME", h.home()}}));
  REQUIRE(c.has_error());
  CHECK(c.error().diag.message == h.home() + "/.aws/config:3: 'region' is set twice in [default] (first on line 2)");
}

TEST_CASE("shared files: a directory where a file should be is an error naming it") {
  temp_home h;
  fs::create_directories(h.dir / ".aws" / "credentials");
  auto r = read_shared_file((h.dir / ".aws" / "credentials").string());
  REQUIRE(r.has_error());
  CHECK(r.error().diag.message.find(h.home() + "/.aws/credentials: ") == 0);
  auto missing = read_shared_file((h.dir / "nope" / "x").string());
  REQUIRE(missing.has_value());
  CHECK_FALSE(missing->has_value());
  auto empty_path = read_shared_file("");
  REQUIRE(empty_path.has_value());
  CHECK_FALSE(empty_path->has_value());
}

TEST_CASE("shared files: without HOME the default paths are reported as unknown") {
  auto c = credentials_from_shared_files({}, env_of({}));
  REQUIRE(c.has_error());
  CHECK(c.error().code == floe::errc::credentials_unavailable);
  CHECK(c.error().diag.message.find("HOME is not set") != std::string::npos);
}

}  // namespace credentials_shared_files_test
