// A build unit of the unit tests: see tests/unit/meson.build.
#include "../http/test_pure.cpp"
#include "../http/test_reply_head.cpp"
#include "../http/test_reply_reader.cpp"
#include "../http/test_request_head.cpp"
#include "../http/test_error_words.cpp"
#include "../http/test_deadline.cpp"
#include "../http/test_address_book.cpp"
#include "../http/test_ca_location.cpp"
