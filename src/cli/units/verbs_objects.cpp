// A build unit of the CLI: see src/cli/meson.build.
#include "../verbs/ls.cpp"
#include "../verbs/cp.cpp"
#include "../verbs/mv.cpp"
#include "../verbs/rm.cpp"
