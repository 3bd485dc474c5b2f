// A build unit of the CLI: see src/cli/meson.build.
#include "../verbs/watch.cpp"
#include "../watch_exec.cpp"
#include "../watch_http.cpp"
