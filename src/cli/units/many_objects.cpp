// The CLI's build unit 'many_objects' (src/cli/meson.build): these files compiled as one
// translation unit, so that what they share is parsed and instantiated once.
// Included by relative paths: the same text in every checkout (the compiler
// cache finds it from any clone). tests/unit/cli/cli_units.py checks that every
// source of the CLI is in exactly one unit.
#include "../list_pages.cpp"
#include "../tree_source.cpp"
#include "../delete_batch.cpp"
#include "../remove_prefix.cpp"
