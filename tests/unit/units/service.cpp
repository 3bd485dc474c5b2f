// A build unit of the unit tests: see tests/unit/meson.build.
#include "../service/test_request_machine.cpp"
#include "../service/test_deadline.cpp"
#include "../service/test_protocol.cpp"
#include "../service/test_diagnostics.cpp"
