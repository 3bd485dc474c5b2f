// A build unit of the integration tests: see tests/integration/meson.build.
#include "../s3/test_objects.cpp"
#include "../s3/test_downloads.cpp"
#include "../s3/test_multipart.cpp"
#include "../s3/test_copy.cpp"
#include "../s3/test_write_options.cpp"
