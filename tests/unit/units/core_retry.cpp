// A build unit of the unit tests: see tests/unit/meson.build.
#include "../core/test_error.cpp"
#include "../core/test_blocking_worker.cpp"
#include "../retry/test_policy.cpp"
#include "../retry/test_clock_skew.cpp"
#include "../retry/test_hedge.cpp"
#include "../retry/test_size_band.cpp"
