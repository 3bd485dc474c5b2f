// A build unit of the unit tests: see tests/unit/meson.build.
#include "../sigv4/test_suite.cpp"
#include "../sigv4/test_sigv4.cpp"
#include "../sigv4/test_aws_chunked.cpp"
