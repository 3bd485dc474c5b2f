// A build unit of the integration tests: see tests/integration/meson.build.
#include "../credentials/test_chain.cpp"
#include "../credentials/test_chain_order.cpp"
#include "../credentials/test_fetch_paths.cpp"
