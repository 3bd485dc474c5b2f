// A build unit of the CLI: see src/cli/meson.build.
#include "../tree_transfer.cpp"
#include "../verbs/sync.cpp"
