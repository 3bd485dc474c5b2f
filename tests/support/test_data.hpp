#pragma once
// Reads test inputs under $FLOE_TEST_DATA (tests/data): any file by its
// path there (data_file), our own bodies under errors/ and the verbatim
// replies stores send under vectors/errors/.
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace floe_test {

inline std::string env_or_fail(char const* name) {
  char const* v = std::getenv(name);
  if (v == nullptr || *v == '\0') {
    FAIL("environment variable ", name, " is not set: run this test through `meson test` (tests/meson.build sets it)");
  }
  return v;
}

inline std::string slurp(std::string const& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) FAIL("cannot read ", path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// The file at `rel` under tests/data (e.g. "events/moto-01.json").
inline std::string data_file(std::string const& rel) { return slurp(env_or_fail("FLOE_TEST_DATA") + "/" + rel); }

inline std::string our_data(std::string const& name) { return data_file("errors/" + name); }

inline std::string reply_vector_dir() { return env_or_fail("FLOE_TEST_DATA") + "/vectors/errors/"; }

}  // namespace floe_test
