// A build unit of the unit tests: see tests/unit/meson.build.
#include "../ledger/test_entry.cpp"
#include "../ledger/test_format.cpp"
#include "../ledger/test_commit_machine.cpp"
#include "../ledger/test_interleavings.cpp"
#include "../ledger/test_verify.cpp"
#include "../ledger/test_removals.cpp"
