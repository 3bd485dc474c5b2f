// A build unit of the integration tests: see tests/integration/meson.build.
#include "../credentials/test_refreshing.cpp"
#include "../threads/test_threads.cpp"
#include "../sqs/test_sqs_client.cpp"
