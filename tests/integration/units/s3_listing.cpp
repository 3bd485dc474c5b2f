// A build unit of the integration tests: see tests/integration/meson.build.
#include "../s3/test_listing.cpp"
#include "../s3/test_buckets_and_addressing.cpp"
#include "../s3/test_checksums.cpp"
#include "../s3/test_upload_checksums.cpp"
