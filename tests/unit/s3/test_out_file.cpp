// Where a download writes (s3/detail/out_file.hpp): a temporary file beside
// the target, renamed over it only on commit. Runs in a directory of its
// own under the system's temporary directory.
#include <floe/s3/detail/out_file.hpp>

#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace s3_out_file_test {

namespace fs = std::filesystem;
using floe::s3::detail::out_file;

namespace {
struct scratch_dir {
  fs::path dir;
  scratch_dir() {
    dir = fs::temp_directory_path() / ("floe-out-file-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~scratch_dir() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::size_t entries() const {
    std::size_t n = 0;
    for (auto const& e : fs::directory_iterator(dir)) n += e.exists() ? 1 : 0;
    return n;
  }
};

std::string read_all(fs::path const& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_all(fs::path const& p, std::string const& text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
}
}  // namespace

TEST_CASE("out_file: a new target appears only on commit, whole, and no temporary file is left") {
  scratch_dir d;
  auto const target = d.dir / "new.bin";
  {
    out_file f;
    REQUIRE(f.open(target.string()));
    CHECK_FALSE(f.temp.empty());
    CHECK(fs::path(f.temp).parent_path() == d.dir);
    std::uint64_t written = 0;
    CHECK(f.write("hello ", written) == 0);
    CHECK(f.write("world", written) == 0);
    CHECK(written == 11);
    CHECK_FALSE(fs::exists(target));
    CHECK(f.commit().empty());
  }
  CHECK(read_all(target) == "hello world");
  CHECK(d.entries() == 1);
}

TEST_CASE("out_file: an existing target is untouched unless committed, and keeps its permissions when replaced") {
  scratch_dir d;
  auto const target = d.dir / "have.txt";
  write_all(target, "old content");
  ::chmod(target.c_str(), 0640);
  {
    out_file f;
    REQUIRE(f.open(target.string()));
    std::uint64_t written = 0;
    CHECK(f.write("partial", written) == 0);
    f.discard();  // a failed, cancelled or not-modified download
    CHECK(f.temp.empty());
  }
  CHECK(read_all(target) == "old content");
  CHECK(d.entries() == 1);
  {
    out_file f;
    REQUIRE(f.open(target.string()));
    std::uint64_t written = 0;
    CHECK(f.write("partial", written) == 0);
  }  // dropped without commit: as discard
  CHECK(read_all(target) == "old content");
  CHECK(d.entries() == 1);
  {
    out_file f;
    REQUIRE(f.open(target.string()));
    std::uint64_t written = 0;
    CHECK(f.write("new", written) == 0);
    CHECK(f.commit().empty());
  }
  CHECK(read_all(target) == "new");
  struct stat st {};
  REQUIRE(::stat(target.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0640);
  CHECK(d.entries() == 1);
}

TEST_CASE("out_file: a symbolic link's target is replaced, the link stays") {
  scratch_dir d;
  auto const real = d.dir / "real.txt";
  auto const link = d.dir / "link.txt";
  write_all(real, "old");
  fs::create_symlink(real, link);
  out_file f;
  REQUIRE(f.open(link.string()));
  CHECK(f.target == fs::canonical(real).string());
  std::uint64_t written = 0;
  CHECK(f.write("new", written) == 0);
  CHECK(f.commit().empty());
  CHECK(fs::is_symlink(link));
  CHECK(read_all(real) == "new");
}

TEST_CASE("out_file: a target that is not a regular file is written in place") {
  out_file f;
  REQUIRE(f.open("/dev/null"));
  CHECK(f.temp.empty());
  std::uint64_t written = 0;
  CHECK(f.write("discarded", written) == 0);
  CHECK(written == 9);
  CHECK(f.commit().empty());
  CHECK(fs::exists("/dev/null"));
}

TEST_CASE("out_file: a directory that does not exist fails to open with errno set, leaving nothing") {
  scratch_dir d;
  out_file f;
  errno = 0;
  CHECK_FALSE(f.open((d.dir / "missing" / "x").string()));
  CHECK(errno == ENOENT);
  CHECK(f.fd < 0);
  CHECK(f.temp.empty());
  CHECK(d.entries() == 0);
}

}  // namespace s3_out_file_test
