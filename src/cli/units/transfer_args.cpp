// A build unit of the CLI: see src/cli/meson.build.
#include "../conditional_write.cpp"
#include "../transfer_options.cpp"
#include "../metadata_arg.cpp"
#include "../mime_type.cpp"
#include "../filters.cpp"
