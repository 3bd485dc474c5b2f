// The CLI's build unit 'output' (src/cli/meson.build): these files compiled as one
// translation unit, so that what they share is parsed and instantiated once.
// Included by relative paths: the same text in every checkout (the compiler
// cache finds it from any clone). tests/unit/cli/cli_units.py checks that every
// source of the CLI is in exactly one unit.
#include "../output.cpp"
#include "../request_log.cpp"
#include "../progress.cpp"
#include "../listing_format.cpp"
#include "../shown_path.cpp"
#include "../spill_buffer.cpp"
#include "../spill_list.cpp"
#include "../watch_log.cpp"
