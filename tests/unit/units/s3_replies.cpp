// A build unit of the unit tests: see tests/unit/meson.build.
#include "../s3/test_download_check.cpp"
#include "../s3/test_verification.cpp"
#include "../s3/test_pagination.cpp"
#include "../s3/test_replies.cpp"
#include "../s3/test_conditional.cpp"
#include "../s3/test_trailer_body.cpp"
