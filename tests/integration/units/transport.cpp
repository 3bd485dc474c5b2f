// A build unit of the integration tests: see tests/integration/meson.build.
#include "../http/test_client.cpp"
#include "../http/test_addresses.cpp"
#include "../http/test_transport.cpp"
#include "../http/test_bodies.cpp"
#include "../service/test_driver.cpp"
#include "../service/test_hedge.cpp"
#include "../service/test_deadline.cpp"
