// A build unit of the CLI: see src/cli/meson.build.
#include "../list_pages.cpp"
#include "../tree_source.cpp"
#include "../delete_batch.cpp"
#include "../remove_prefix.cpp"
