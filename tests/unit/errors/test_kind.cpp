#include <floe/errors/kind.hpp>

#include <doctest/doctest.h>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace errors_kind_test {

TEST_CASE("every kind maps to a distinct name and the retryable ones are exactly three") {
  using floe::errors::kind;
  int retryable = 0;
  for (int i = 0; i <= static_cast<int>(kind::redirect); ++i) {
    auto k = static_cast<kind>(i);
    CHECK(floe::errors::to_string(k) != "?");
    retryable += floe::errors::is_retryable(k) ? 1 : 0;
  }
  CHECK(retryable == 3);
}

}  // namespace errors_kind_test
