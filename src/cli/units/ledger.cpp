// A build unit of the CLI: see src/cli/meson.build.
#include "../verbs/ledger.cpp"
#include "../ledger_text.cpp"
#include "../ledger_reconcile.cpp"
