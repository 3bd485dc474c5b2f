// A build unit of the CLI: see src/cli/meson.build.
#include "../output.cpp"
#include "../request_log.cpp"
#include "../progress.cpp"
#include "../listing_format.cpp"
#include "../shown_path.cpp"
#include "../spill_buffer.cpp"
#include "../spill_list.cpp"
#include "../watch_log.cpp"
