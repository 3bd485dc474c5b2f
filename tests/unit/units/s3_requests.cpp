// A build unit of the unit tests: see tests/unit/meson.build.
#include "../s3/test_addressing.cpp"
#include "../s3/test_query_builder.cpp"
#include "../s3/test_request_building.cpp"
#include "../s3/test_reply_decoding.cpp"
#include "../s3/test_out_file.cpp"
#include "../s3/test_exchange_pool.cpp"
