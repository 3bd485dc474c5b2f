#pragma once
// SQS over its JSON protocol, the pure part: every operation's parameters,
// request body and reply, the checks on message bodies and queue names,
// and the timing rule of a long poll. No I/O: a client sends what these
// build through the shared request driver and hands the reply body back.
//
//   sqs/request.hpp       the wire shape shared by every operation, limits
//   sqs/queues.hpp        CreateQueue, DeleteQueue, GetQueueUrl,
//                         GetQueueAttributes, SetQueueAttributes, PurgeQueue
//   sqs/messages.hpp      SendMessage, ReceiveMessage, DeleteMessage,
//                         ChangeMessageVisibility
//   sqs/batches.hpp       SendMessageBatch, DeleteMessageBatch,
//                         ChangeMessageVisibilityBatch
//   sqs/message_body.hpp  what SQS accepts as a body; MD5 checks
//   sqs/queue.hpp         a queue named by URL or by name; long-poll timeout
//   json/writer.hpp       the JSON writer the request bodies are made with
//                         (refusing text that is not UTF-8)
//   errors/json_error.hpp the JSON protocol's error replies
//
// Usage, for any operation P:
//
//   sqs::receive_message_params p{.queue_url = url, .max_messages = 10,
//                                 .wait = std::chrono::seconds(20),
//                                 .system_attribute_names = {"ApproximateReceiveCount"}};
//   auto req = sqs::build_request(p);     // result<sqs::request>
//   // POST / with X-Amz-Target: req->target, Content-Type: sqs::json_content_type,
//   // body req->body, signed for service "sqs"; read timeout
//   // sqs::long_poll_read_timeout(sqs::longest_wait(p), configured)
//   auto r = sqs::parse_reply(p, reply_body);  // result<sqs::receive_message_result>

#include <floe/sqs/batches.hpp>
#include <floe/sqs/message_body.hpp>
#include <floe/sqs/messages.hpp>
#include <floe/sqs/queue.hpp>
#include <floe/sqs/queues.hpp>
#include <floe/sqs/request.hpp>
