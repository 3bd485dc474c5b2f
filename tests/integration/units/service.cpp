// A build unit of the integration tests: see tests/integration/meson.build.
#include "../service/test_driver.cpp"
#include "../service/test_hedge.cpp"
#include "../service/test_deadline.cpp"
