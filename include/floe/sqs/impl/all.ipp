#pragma once
// Gathers the sqs implementation files for <floe/src.hpp> and libfloe's units (src/lib/). One line per header.
#include <floe/sqs/impl/message_body.ipp>
#include <floe/sqs/impl/queue.ipp>
#include <floe/sqs/impl/queues.ipp>
#include <floe/sqs/impl/messages.ipp>
#include <floe/sqs/impl/batches.ipp>
#include <floe/sqs/impl/client.ipp>
