#pragma once
// Reads test inputs: our own bodies under $FLOE_TEST_DATA/errors/ and the
// verbatim replies stores send under $FLOE_TEST_DATA/vectors/errors/.
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

inline std::string our_data(std::string const& name) { return slurp(env_or_fail("FLOE_TEST_DATA") + "/errors/" + name); }

inline std::string reply_vector_dir() { return env_or_fail("FLOE_TEST_DATA") + "/vectors/errors/"; }

}  // namespace floe_test
