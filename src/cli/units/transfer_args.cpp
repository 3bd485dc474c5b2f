// The CLI's build unit 'transfer_args' (src/cli/meson.build): these files compiled as one
// translation unit, so that what they share is parsed and instantiated once.
// Included by relative paths: the same text in every checkout (the compiler
// cache finds it from any clone). tests/unit/cli/cli_units.py checks that every
// source of the CLI is in exactly one unit.
#include "../conditional_write.cpp"
#include "../transfer_options.cpp"
#include "../metadata_arg.cpp"
#include "../mime_type.cpp"
#include "../filters.cpp"
