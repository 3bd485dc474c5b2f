// A build unit of the integration tests: see tests/integration/meson.build.
#include "../conditional/test_conditional_it.cpp"
#include "../conditional/test_quirks_moto.cpp"
#include "../conditional/test_torture.cpp"
#include "../ledger/test_ledger_it.cpp"
#include "../ledger/test_ledger_files.cpp"
