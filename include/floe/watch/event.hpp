#pragma once
// One SQS message body as S3 object events. Pure: bytes in, a value out;
// bad input is an error value with a reason, never an exception.
//
// Shapes understood (facts from AWS's documentation and moto 5.2.1's
// bodies, tests/data/events/):
//   - an S3 event notification: {"Records": [...]}, one or more records,
//     each with eventName, s3.bucket.name and s3.object.key, and when
//     present s3.object.size, eTag, versionId, sequencer and eventTime. The
//     same body arrives through SNS with raw message delivery on. moto sends
//     no sequencer or versionId, an eventTime without 'Z', and a size and
//     eTag on ObjectRemoved records too.
//   - the s3:TestEvent S3 sends when a notification is configured:
//     {"Service": "Amazon S3", "Event": "s3:TestEvent", "Bucket": ...}.
//   - an SNS envelope: {"Type": "Notification", "Message": "<the event as a
//     JSON string>", "MessageId": ...}; the Message is one of the shapes
//     above or below (not another envelope).
//   - an EventBridge event from S3: {"source": "aws.s3", "detail-type":
//     "Object Created", "time": ..., "detail": {"bucket": {"name"},
//     "object": {"key", "size", "etag", "version-id", "sequencer"}, "reason"}}.
//     moto names the ETag "eTag" there; both are read.
//
// Keys. An S3 notification's key is form-encoded: '+' is a space and %XX a
// byte (moto also encodes '/' as %2F). It is decoded exactly once; a '%' not
// followed by two hex digits is an error, and so is a key that is not UTF-8
// once decoded. EventBridge keys are not encoded and are taken as they are.
// A version id "null" (S3's name for the version of an object in an
// unversioned bucket, which moto's EventBridge events carry) is read as no
// version id, as a HeadObject of such an object shows none.
//
// What a watcher does with the result: act on each event whose kind is
// object_created; a test event, or a message whose events are all of other
// kinds, is valid and asks for nothing (asks_for_nothing).

#include <floe/config.hpp>
#include <floe/result.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace floe::watch {

/// The shape the event was written in.
enum class event_format : std::uint8_t {
  s3_notification,  // {"Records": [...]} or the s3:TestEvent
  eventbridge,      // an EventBridge event from source aws.s3
};

enum class event_kind : std::uint8_t {
  object_created,  // ObjectCreated:* (S3) or "Object Created" (EventBridge)
  object_removed,  // ObjectRemoved:* (S3) or "Object Deleted" (EventBridge): acted on with --removals only
  other,           // restores, tagging, ...: valid, asks for nothing
};

struct object_event {
  event_kind kind = event_kind::other;
  std::string name;    // S3: eventName ("ObjectCreated:Put"); EventBridge: detail-type ("Object Created")
  std::string reason;  // EventBridge: detail.reason ("PutObject"); S3: empty
  std::string bucket;
  std::string key;     // decoded
  std::optional<std::uint64_t> size;
  std::string etag;        // without quotes; empty: not sent
  std::string version_id;  // empty: none (or "null")
  std::string sequencer;   // empty: not sent
  std::string event_time;  // as sent (S3 eventTime or EventBridge time); empty: not sent
  /// A removal that left a delete marker (ObjectRemoved:DeleteMarkerCreated;
  /// EventBridge deletion-type "Delete Marker Created"): version_id is the
  /// marker's, not an object version's.
  bool delete_marker = false;
};

enum class message_kind : std::uint8_t {
  object_events,  // events holds one or more object events
  test_event,     // s3:TestEvent; events is empty
};

struct event_message {
  message_kind kind = message_kind::object_events;
  event_format format = event_format::s3_notification;
  bool sns_envelope = false;     // it came inside an SNS Notification (not raw delivery)
  std::string sns_message_id;    // the envelope's MessageId (empty without one)
  std::string test_bucket;       // the bucket a test event names
  std::vector<object_event> events;
};

struct event_limits {
  /// Bodies larger than this are refused (SQS's own limit is 1 MiB).
  std::size_t max_bytes = 1024 * 1024;
  /// Records per message.
  std::size_t max_records = 1000;
};

/// Parses one message body. Errors: errc::malformed_reply with a reason
/// naming the field ("Records[1].s3.object.key: '%' not followed by two hex
/// digits"); errc::reply_too_large above limits.max_bytes. Never throws
/// (std::bad_alloc aside).
FLOE_DECL result<event_message> parse_event_message(std::string_view body, event_limits const& limits = {});

/// Decodes a key as S3 notifications encode it: '+' is a space, %XX a byte
/// (hex digits of either case), everything else as it is. Errors
/// (errc::malformed_reply): a bad escape; a result that is not UTF-8.
FLOE_DECL result<std::string> decode_event_key(std::string_view encoded);

/// The event asks the watcher to look at the object (`removals`: removal
/// events too, `floe watch --removals`).
inline bool wants_action(object_event const& e, bool removals = false) noexcept {
  return e.kind == event_kind::object_created || (removals && e.kind == event_kind::object_removed);
}

/// A valid message that asks for nothing: a test event, or only events that
/// are not ObjectCreated. (Pattern and ledger-prefix filters are the
/// watcher's, on top of this.)
FLOE_DECL bool asks_for_nothing(event_message const& m) noexcept;

FLOE_DECL std::string_view to_string(event_format f) noexcept;

}  // namespace floe::watch

#if defined(FLOE_HEADER_ONLY)
#include <floe/watch/impl/event.ipp>
#endif
