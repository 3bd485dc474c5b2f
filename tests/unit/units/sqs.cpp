// A build unit of the unit tests: see tests/unit/meson.build.
#include "../sqs/test_message_body.cpp"
#include "../sqs/test_queue.cpp"
#include "../sqs/test_requests.cpp"
#include "../sqs/test_replies.cpp"
#include "../sqs/test_json_errors.cpp"
#include "../sqs/test_call_facts.cpp"
