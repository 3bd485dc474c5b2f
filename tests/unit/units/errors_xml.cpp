// A build unit of the unit tests: see tests/unit/meson.build.
#include "../errors/test_kind.cpp"
#include "../errors/test_classify.cpp"
#include "../errors/test_vectors.cpp"
#include "../errors/test_reply_error.cpp"
#include "../xml/test_document.cpp"
#include "../xml/test_encodings.cpp"
#include "../xml/test_error_body.cpp"
#include "../json/test_writer.cpp"
