// A build unit of the unit tests: see tests/unit/meson.build.
#include "../checksum/test_crc.cpp"
#include "../checksum/test_algorithm.cpp"
#include "../checksum/test_hasher.cpp"
#include "../checksum/test_combine.cpp"
