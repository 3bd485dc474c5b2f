// The CLI's build unit 'one_object_more' (src/cli/meson.build): these files compiled as one
// translation unit, so that what they share is parsed and instantiated once.
// Included by relative paths: the same text in every checkout (the compiler
// cache finds it from any clone). tests/unit/cli/cli_units.py checks that every
// source of the CLI is in exactly one unit.
#include "../download.cpp"
#include "../copy.cpp"
#include "../move_source.cpp"
