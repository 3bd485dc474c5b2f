// A build unit of the integration tests: see tests/integration/meson.build.
#include "../s3/test_hostile_replies.cpp"
#include "../service/test_warm_up.cpp"
