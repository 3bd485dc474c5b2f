// A build unit of the integration tests: see tests/integration/meson.build.
#include "../ledger/test_ledger_it.cpp"
#include "../ledger/test_ledger_files.cpp"
