// A build unit of the CLI: see src/cli/meson.build.
#include "../parse.cpp"
#include "../help.cpp"
#include "../options.cpp"
#include "../verbs.cpp"
#include "../commands.cpp"
