// A build unit of the unit tests: see tests/unit/meson.build.
#include "../session/test_session.cpp"
#include "../endpoints/test_resolver.cpp"
#include "../refresh/test_policy.cpp"
#include "../sts/test_protocol.cpp"
