// A build unit of the CLI: see src/cli/meson.build.
#include "../download.cpp"
#include "../copy.cpp"
#include "../move_source.cpp"
