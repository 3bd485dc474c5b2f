// The CLI's build unit 'verbs_other' (src/cli/meson.build): these files compiled as one
// translation unit, so that what they share is parsed and instantiated once.
// Included by relative paths: the same text in every checkout (the compiler
// cache finds it from any clone). tests/unit/cli/cli_units.py checks that every
// source of the CLI is in exactly one unit.
#include "../verbs/stat.cpp"
#include "../verbs/put.cpp"
#include "../verbs/presign.cpp"
#include "../verbs/bucket.cpp"
#include "../verbs/whoami.cpp"
