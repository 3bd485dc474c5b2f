// A build unit of the CLI: see src/cli/meson.build.
#include "../one_object.cpp"
#include "../upload.cpp"
#include "../op_line.cpp"
