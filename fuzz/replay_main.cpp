// The replay program of every fuzz target: the target's source compiled
// with this file (by any compiler, without libFuzzer) runs each file named
// on the command line, or found in a directory named there, and prints
// "floe-cases: N passed, M failed"; the committed corpora run that way as
// the meson tests of suite 'fuzz-replay'. An input fails when it throws or
// prints to stderr; a broken invariant aborts the program (naming the input).

#include "fuzz_support.hpp"

#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

// Replay also checks that an input makes nothing print to stderr (libxml2
// writes some encoding errors there unless floe silences it). Only here:
// under the fuzzer, a sanitizer report must reach the real stderr.
class stderr_probe {
 public:
  stderr_probe() : tmp_(std::tmpfile()) {}
  ~stderr_probe() {
    if (tmp_ != nullptr) std::fclose(tmp_);
  }
  stderr_probe(stderr_probe const&) = delete;
  stderr_probe& operator=(stderr_probe const&) = delete;
  bool ok() const { return tmp_ != nullptr; }

  // Runs f with fd 2 pointing at a scratch file; returns the bytes written there.
  template <class F>
  long run(F&& f) {
    std::fflush(stderr);
    int const fd = ::fileno(tmp_);
    if (::ftruncate(fd, 0) != 0) return -1;
    ::lseek(fd, 0, SEEK_SET);
    int const saved = ::dup(2);
    if (saved < 0) return -1;
    ::dup2(fd, 2);
    floe_fuzz::report_fd = saved;
    f();
    std::fflush(stderr);
    floe_fuzz::report_fd = 2;
    ::dup2(saved, 2);
    ::close(saved);
    return static_cast<long>(::lseek(fd, 0, SEEK_END));
  }

 private:
  std::FILE* tmp_;
};

bool read_file(std::filesystem::path const& p, std::string& out) {
  std::FILE* f = std::fopen(p.c_str(), "rb");
  if (f == nullptr) return false;
  out.clear();
  char buf[4096];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  bool const ok = std::ferror(f) == 0;
  std::fclose(f);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    fs::path p(argv[i]);
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      for (auto const& e : fs::recursive_directory_iterator(p)) {
        if (e.is_regular_file()) files.push_back(e.path());
      }
    } else {
      files.push_back(p);
    }
  }
  std::size_t passed = 0;
  std::size_t failed = 0;
  stderr_probe probe;
  if (!probe.ok()) {
    std::printf("FAILED: cannot create a scratch file for stderr\n");
    return 1;
  }
  for (auto const& p : files) {
    std::string bytes;
    if (!read_file(p, bytes)) {
      std::printf("FAILED %s: cannot read\n", p.c_str());
      ++failed;
      continue;
    }
    floe_fuzz::current_input = p.c_str();
    try {
      long const printed = probe.run(
          [&] { LLVMFuzzerTestOneInput(reinterpret_cast<std::uint8_t const*>(bytes.data()), bytes.size()); });
      if (printed != 0) {
        std::printf("FAILED %s: %ld bytes printed to stderr\n", p.c_str(), printed);
        ++failed;
      } else {
        ++passed;
      }
    } catch (std::exception const& e) {
      std::printf("FAILED %s: threw %s\n", p.c_str(), e.what());
      ++failed;
    }
  }
  if (files.empty()) {
    std::printf("FAILED: no inputs found (give corpus files or directories)\n");
    ++failed;
  }
  std::printf("floe-cases: %zu passed, %zu failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
