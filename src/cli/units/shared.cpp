// A build unit of the CLI: see src/cli/meson.build.
#include "../context.cpp"
#include "../op_trace.cpp"
#include "../s3_uri.cpp"
#include "../temp_file.cpp"
#include "../interrupt.cpp"
