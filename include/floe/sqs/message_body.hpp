#pragma once
// What SQS accepts as a message body, and the MD5 digests that guard
// bodies on their way to and from the queue. Pure.
//
// A body is 1 or more bytes of UTF-8 whose characters are all in the set
// SQS documents (the XML 1.0 Char production):
//   #x9 | #xA | #xD | #x20-#xD7FF | #xE000-#xFFFD | #x10000-#x10FFFF
// AWS replaces a character outside that set with U+FFFD instead of
// refusing the message, so such a body is refused here, before it is sent:
// it would arrive altered.
//
// Size: the largest message SQS takes is 1 MiB (1,048,576 bytes) since
// 2025; a queue's own MaximumMessageSize defaults to 256 KiB (262,144
// bytes), the limit of every queue made before then. floe checks bodies
// against a limit the caller chooses, 256 KiB unless told otherwise.

#include <floe/config.hpp>
#include <floe/result.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace floe::sqs {

/// A queue's default MaximumMessageSize, and floe's default limit.
inline constexpr std::size_t default_max_message_bytes = 256 * 1024;
/// The most SQS accepts in one message, or in all the bodies of one batch.
inline constexpr std::size_t service_max_message_bytes = 1024 * 1024;

/// Checks a body. `what` names it in messages ("MessageBody", "entry 'a'").
/// Errors (errc::invalid_argument): empty; larger than max_bytes (a limit
/// of 0 or above service_max_message_bytes means service_max_message_bytes);
/// not valid UTF-8 (the message gives the byte offset); a character SQS
/// does not allow (the message gives it as U+XXXX and its byte offset).
FLOE_DECL result<void> check_message_body(std::string_view body, std::size_t max_bytes, std::string_view what);

/// The lower-case hex MD5 of the bytes, as SQS reports it (MD5OfMessageBody,
/// MD5OfBody).
FLOE_DECL std::string md5_hex(std::string_view bytes);

/// Whether `reported` (hex, either case) is the MD5 of `body`.
FLOE_DECL bool md5_matches(std::string_view reported, std::string_view body);

}  // namespace floe::sqs

#if defined(FLOE_HEADER_ONLY)
#include <floe/sqs/impl/message_body.ipp>
#endif
