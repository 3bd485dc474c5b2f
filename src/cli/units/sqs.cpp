// A build unit of the CLI: see src/cli/meson.build.
#include "../verbs/sqs.cpp"
#include "../cli_session.cpp"
#include "../sqs_client.cpp"
#include "../sqs_lines.cpp"
#include "../sqs_send.cpp"
#include "../sqs_receive.cpp"
