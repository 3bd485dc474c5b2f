// The CLI's build unit 'verbs_objects' (src/cli/meson.build): these files compiled as one
// translation unit, so that what they share is parsed and instantiated once.
// Included by relative paths: the same text in every checkout (the compiler
// cache finds it from any clone). tests/unit/cli/cli_units.py checks that every
// source of the CLI is in exactly one unit.
#include "../verbs/ls.cpp"
#include "../verbs/cp.cpp"
#include "../verbs/mv.cpp"
#include "../verbs/rm.cpp"
