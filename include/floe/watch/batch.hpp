#pragma once
// One received batch of SQS messages, from bodies to what may be deleted.
// Pure: the watcher's runner (watch/watcher.hpp) does the I/O and reports
// each outcome here; this decides.
//
//   auto b = watch::batch::plan(messages, filter);
//   b.nothing_to_do()          // valid messages that ask for nothing: delete now
//   b.objects()                // one work item per distinct object (HEAD, exec, commit)
//   b.set_outcome(i, object_outcome::to_commit) ... b.commit_confirmed();
//   b.deletable(), b.kept()    // once every object is settled
//
// Messages. Each gets a verdict when planned:
//   work         at least one record asks for an object the watcher acts on
//   test_event   s3:TestEvent
//   not_created  only events other than ObjectCreated
//   no_match     ObjectCreated, but no key matches a pattern
//   own_ledger   ObjectCreated only for keys under the ledger's own prefix
//                (its commits and checkpoints: never registered, so the
//                watcher does not feed on itself)
//   malformed    a body parse_event_message refuses: never deleted, so the
//                queue's redrive policy moves it to the dead-letter queue
// A message of several records that both match and not is `work`; what
// its other records asked for is counted in `records_ignored`.
//
// Objects. Records are gathered into work items by identity: (bucket, key,
// ETag, version id, and whether it is a removal) as the events give them
// (the newest sequencer among them kept), so the same event delivered
// twice (moto sends ObjectCreated:Put and :CompleteMultipartUpload for one
// multipart upload) is one item whose messages are all of the ones that
// named it. An item's outcome decides its messages' fate: a message may be
// deleted once every object it names is settled without failure (vanished,
// replaced, already registered, or committed in a confirmed commit); a
// message naming a failed object is kept, and comes back after its
// visibility timeout. A failing object keeps only its own messages.

#include <floe/checksum/algorithm.hpp>
#include <floe/config.hpp>
#include <floe/result.hpp>
#include <floe/watch/event.hpp>
#include <floe/watch/pattern.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace floe::watch {

/// What the batch core needs of one received message.
struct received_message {
  std::string message_id;
  std::string receipt_handle;
  std::string body;
  std::uint64_t receive_count = 0;  // ApproximateReceiveCount; 0: not known
};

/// Which objects a watcher acts on.
struct object_filter {
  std::vector<pattern> patterns;
  /// The ledger's location: keys under it in its bucket are never acted on.
  std::string ledger_bucket;
  std::string ledger_prefix;  // "" (the whole bucket) or ending in '/'
  event_limits limits;
  /// Act on removal events too (floe watch --removals): each becomes a
  /// work item that writes a removal to the ledger.
  bool removals = false;

  /// The key is the ledger's own (its bucket, under its prefix).
  FLOE_DECL bool is_own_ledger(std::string_view bucket, std::string_view key) const noexcept;
};

enum class message_verdict : std::uint8_t { work, test_event, not_created, no_match, own_ledger, malformed };

FLOE_DECL std::string_view to_string(message_verdict v) noexcept;

struct message_plan {
  message_verdict verdict = message_verdict::malformed;
  std::string reason;                 // malformed: why (names the field)
  std::size_t records = 0;            // object events in the body
  std::size_t records_ignored = 0;    // of those, events that asked for nothing
  std::vector<std::size_t> objects;   // work items it names (indices into objects())
  bool sns_envelope = false;
  event_format format = event_format::s3_notification;
};

/// How one object ended.
enum class object_outcome : std::uint8_t {
  pending,    // not settled yet
  vanished,   // HEAD: 404, deleted since its event: skipped
  replaced,   // HEAD with If-Match: 412, replaced since (its own event comes): done
  already,    // the ledger holds it already: done
  stale,      // older than the newest event the ledger holds for its key (ledger/state.hpp): done
  to_commit,  // checked (and --exec run): waiting for the commit
  committed,  // in a confirmed commit
  failed,     // keeps its messages
};

FLOE_DECL std::string_view to_string(object_outcome o) noexcept;

/// Settled without failure: its messages may go.
inline bool settled_ok(object_outcome o) noexcept {
  return o == object_outcome::vanished || o == object_outcome::replaced || o == object_outcome::already ||
         o == object_outcome::stale || o == object_outcome::committed;
}

struct object_work {
  std::string bucket;
  std::string key;  // decoded
  std::string etag;        // from the event (unquoted); empty: none sent, HEAD without If-Match
  std::string version_id;  // from the event
  std::optional<std::uint64_t> size;  // from the event
  std::string event_name;
  std::string event_time;
  std::string sequencer;    // upper-case hex; empty: none sent (moto, a reconcile listing)
  /// A removal (--removals): no HEAD, no --exec; the commit records it.
  /// Its version_id is empty for a delete marker (every version goes).
  bool removal = false;
  std::vector<std::size_t> messages;  // indices of the messages that name it

  // Filled as it is worked on.
  object_outcome outcome = object_outcome::pending;
  std::string reason;  // failed: why; vanished / replaced: what HEAD said
  // What HEAD said (the entry a commit registers).
  std::string head_etag;
  std::string head_version_id;
  std::uint64_t head_size = 0;
  std::optional<checksum::algorithm> head_checksum_algorithm;
  std::string head_checksum;
};

class batch {
 public:
  /// Parses and filters `messages` (each body once), gathers the work items.
  FLOE_DECL static batch plan(std::vector<received_message> messages, object_filter const& filter);
  /// Objects found without a message (a reconcile listing, reconcile.hpp):
  /// worked on alike; there is nothing to delete.
  FLOE_DECL static batch of_objects(std::vector<object_work> objects);

  std::vector<received_message> const& messages() const noexcept { return messages_; }
  std::vector<message_plan> const& plans() const noexcept { return plans_; }
  std::vector<object_work> const& objects() const noexcept { return objects_; }
  object_work& object(std::size_t i) { return objects_.at(i); }

  /// Messages that are valid and ask for nothing (every verdict but work and
  /// malformed): deleted at once.
  FLOE_DECL std::vector<std::size_t> nothing_to_do() const;
  /// Malformed messages: never deleted.
  FLOE_DECL std::vector<std::size_t> malformed() const;

  /// Records how an object ended (committed: use commit_confirmed).
  FLOE_DECL void set_outcome(std::size_t object, object_outcome o, std::string reason = {});
  /// The commit holding every to_commit object is confirmed.
  FLOE_DECL void commit_confirmed();
  /// The commit failed (or its outcome is unknown): every to_commit object
  /// fails, keeping its messages (the ledger drops what did land when they
  /// come back).
  FLOE_DECL void commit_failed(std::string const& reason);
  /// Every pending object fails (the batch was abandoned).
  FLOE_DECL void abandon(std::string const& reason);

  /// Objects waiting for the commit.
  FLOE_DECL std::vector<std::size_t> to_commit() const;
  /// No object is pending or to_commit.
  FLOE_DECL bool settled() const noexcept;
  /// Work messages whose objects all settled without failure.
  FLOE_DECL std::vector<std::size_t> deletable() const;
  /// Messages that stay in the queue: malformed ones, and work messages
  /// naming a failed object (or one not settled).
  FLOE_DECL std::vector<std::size_t> kept() const;

 private:
  std::vector<received_message> messages_;
  std::vector<message_plan> plans_;
  std::vector<object_work> objects_;
};

/// The receipt handles of `indices`, each once, in first-seen order.
FLOE_DECL std::vector<std::string> receipt_handles(batch const& b, std::vector<std::size_t> const& indices);

}  // namespace floe::watch

#if defined(FLOE_HEADER_ONLY)
#include <floe/watch/impl/batch.ipp>
#endif
