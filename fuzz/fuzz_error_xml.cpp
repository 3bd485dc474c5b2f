// Fuzz target: error-body parsing and classification on arbitrary bytes.
//
// With clang and -Dfuzzing=true this is a libFuzzer target (ASan + UBSan).
// Built with -DFLOE_FUZZ_REPLAY (any compiler) it is a replay program: it
// runs every file named on the command line, or found in a directory named
// there, and prints "floe-cases: N passed, M failed"; the committed corpus
// runs that way as a meson test in suite 'fuzz-replay'.
//
// Besides "no crash, no throw, no sanitizer report", the target checks a few
// invariants and aborts when one breaks, so the fuzzer reports it.

#include <floe/errors/classify.hpp>
#include <floe/errors/reply_error.hpp>
#include <floe/xml/document.hpp>
#include <floe/xml/error_body.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

char const* current_input = "";  // the replay program names the file on failure

void check(bool ok, char const* what) {
  if (!ok) {
    std::fprintf(stderr, "invariant broken: %s (input %s)\n", what, current_input);
    std::abort();
  }
}

std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

// Walks the whole tree (bounded by the depth cap) through the element API.
std::size_t walk(floe::xml::element e, unsigned depth) {
  check(depth <= 64, "tree deeper than max_depth");
  std::size_t n = 1 + e.name().size() + e.text().size();
  if (auto v = e.text_view()) check(*v == e.text(), "text_view differs from text");
  for (auto c : e.children()) n += walk(c, depth + 1);
  return n;
}

void check_body(floe::xml::error_body const& b) {
  check(!b.code.empty(), "an error body without a code was accepted");
  for (auto const& [name, value] : b.other) {
    std::string lower;
    for (char c : name) lower += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    if (lower.find("signature") != std::string::npos || lower.find("token") != std::string::npos) {
      check(value == "(redacted)", "a signature/token field was not redacted");
    }
  }
}

void check_classification(floe::errors::reply_facts const& f, floe::errors::classification c) {
  using floe::errors::kind;
  check(!c.reason.empty(), "classification without a reason");
  if (f.reply_lost || f.status == 0) {
    check(c.outcome == (f.conditional_write() ? kind::unknown_outcome : kind::transient), "lost reply");
  } else if (f.status == 412) {
    check(c.outcome == kind::precondition_failed, "412 must be precondition_failed");
  } else if (f.status == 501) {
    check(c.outcome == kind::unsupported, "501 must be unsupported");
  }
  if (f.is_credential_fetch) check(c.outcome != kind::stale_credentials, "credential fetch judged stale");
  if (c.outcome == kind::success) check(f.code.empty(), "an error code classified as success");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
  std::string_view const bytes(reinterpret_cast<char const*>(data), size);

  // 1. The error-body parser under its default limits.
  auto body = floe::xml::parse_error_body(bytes);
  std::string_view code;
  if (body) {
    check_body(body.value());
    code = body.value().code;
  } else {
    check(!body.error().diag.message.empty(), "an error without a reason");
  }

  // 2. The generic reader with room to spare, walked through the element API.
  auto doc = floe::xml::parse(bytes, {.max_bytes = 1 << 20, .max_depth = 64});
  if (doc) (void)walk(doc.value().root(), 1);

  // 3. The classifier over a grid of facts, with the parsed code and with
  //    the raw bytes as a code (the code lists must take any string).
  static constexpr unsigned statuses[] = {0, 200, 301, 304, 400, 403, 404, 409, 412, 429, 500, 501, 503};
  std::string_view const raw_code = bytes.substr(0, 40);
  for (unsigned s : statuses) {
    for (unsigned flags = 0; flags < 64; flags += 7) {
      floe::errors::reply_facts f;
      f.status = s;
      f.code = (flags & 32) != 0 ? raw_code : code;
      f.method = (flags & 16) != 0 ? "HEAD" : "PUT";
      f.is_conditional_write = (flags & 1) != 0;
      f.if_match = (flags & 2) != 0;
      f.credentials_refreshable = (flags & 4) != 0;
      f.is_credential_fetch = (flags & 8) != 0;
      f.reply_lost = s == 0;
      if ((flags & 4) != 0) f.clock_skew = std::chrono::seconds(static_cast<long>(size) * 7 - 600);
      check_classification(f, floe::errors::classify(f));
    }
  }

  // 4. The whole path, with facts picked by the input's hash.
  auto const h = fnv1a(bytes);
  floe::errors::reply_facts f;
  f.status = statuses[h % (sizeof statuses / sizeof statuses[0])];
  f.is_conditional_write = (h >> 8 & 1) != 0;
  f.if_match = (h >> 9 & 1) != 0;
  f.credentials_refreshable = (h >> 10 & 1) != 0;
  f.reply_lost = f.status == 0;
  auto r = floe::errors::describe_reply(f, bytes, {.request_id = "fuzz", .operation = "Fuzz"});
  check(r.err.code == (r.what.outcome == floe::errors::kind::success
                           ? floe::make_error_code(floe::errc::ok)
                           : floe::make_error_code(floe::errors::to_errc(r.what.outcome))),
        "error code does not match the kind");
  for (char c : r.err.diag.message) check(static_cast<unsigned char>(c) >= 0x20 && c != 0x7f, "control char in message");
  (void)r.err.what();
  return 0;
}

#if defined(FLOE_FUZZ_REPLAY)
#include <exception>
#include <filesystem>
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
    f();
    std::fflush(stderr);
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
    current_input = p.c_str();
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
#endif
