// A build unit of the unit tests: see tests/unit/meson.build.
#include "../cli/test_cli_output.cpp"
#include "../cli/test_watch_cli.cpp"
#include "../cli/test_sqs_lines.cpp"
#include "../cli/test_cli_rules.cpp"
#include "../cli/test_spill_buffer.cpp"
#include "../cli/test_spill_list.cpp"
#include "../cli/watch_run_instance.cpp"
