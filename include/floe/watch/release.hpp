#pragma once
// Giving messages back to the queue before their visibility timeout runs
// out. Pure: which messages, with what visibility, in which
// ChangeMessageVisibilityBatch requests, and what a reply means; the
// watcher's runner sends them.
//
// When a batch ends, each of its messages that was not deleted is one of:
//   hand back  the watcher is stopping: visibility 0, so another replica
//              receives it now rather than after the timeout. Every such
//              message, whatever kept it (its work cut short by the stop,
//              a failed object, a malformed body, a failed delete).
//   back off   not stopping, and an object it names failed: visible
//              again first * 2^(n-1) after its n-th receive
//              (ApproximateReceiveCount; 0, not known, counts as 1), at
//              most `max`, so a poison object is received less and less
//              often while the rest flow. n is the queue's own count, so a
//              hand-back does not start the schedule again. The back-off
//              counts from the receive (settle_backoffs): a message already
//              invisible that long — on its first receive the back-off is
//              the receive's own timeout — needs no request, so a failing
//              object costs the batches it is in no extra round trip.
//   leave      anything else: a malformed body (the redrive policy's), a
//              message whose objects all settled but whose delete failed
//              (it comes back after its timeout and is deleted then).
// Messages received after stop() are handed back too (hand_back_all).
// Nothing here deletes: a release only says when the queue hands the
// message out again.

#include <floe/config.hpp>
#include <floe/sqs/batches.hpp>
#include <floe/watch/batch.hpp>
#include <floe/watch/visibility.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace floe::watch {

/// The visibility given to a message whose object failed.
struct failure_backoff {
  std::chrono::seconds first{60};  // on the first receive (1..43200 s)
  std::chrono::seconds max{900};   // the bound (at least `first`, at most 43200 s)
};

/// first * 2^(receive_count - 1), within [first, max] and SQS's 43200 s.
FLOE_DECL std::chrono::seconds backoff_visibility(failure_backoff const& b, std::uint64_t receive_count) noexcept;

enum class release_kind : std::uint8_t { hand_back, back_off };

struct release_entry {
  std::string receipt_handle;
  std::chrono::seconds visibility{0};
  release_kind kind = release_kind::hand_back;
  std::string message_id;          // for the log; may be empty
  std::uint64_t receive_count = 0;  // as received; 0: not known
};

/// What to release at the end of batch `b`: `deleted[m]` says message m
/// was deleted. At most one entry per receipt handle.
FLOE_DECL std::vector<release_entry> plan_release(batch const& b, std::vector<bool> const& deleted, bool stopping,
                                                  failure_backoff const& backoff);

/// Back-offs counted from the receive: each back_off entry's message is to
/// be visible again `visibility` after `received` (when the reply of the
/// receive that handed it out arrived). One the keeper holds (call before
/// releasing) and knows to be invisible still is `in_place` when the
/// back-off is no longer than the keeper's timeout (the queue hid it that
/// long when it handed it out, and extensions only add) or the keeper's
/// count reaches it; its `visibility`: about the seconds left. The others
/// are sent, asking for what is left of the back-off from `now` (at least
/// 1 s). Hand-backs are sent as they are.
struct settled_release {
  std::vector<release_entry> send;
  std::vector<release_entry> in_place;
};
FLOE_DECL settled_release settle_backoffs(std::vector<release_entry> entries, visibility_keeper const& keeper,
                                          visibility_keeper::time_point received, visibility_keeper::time_point now);

/// Every handle handed back (visibility 0), each once.
FLOE_DECL std::vector<release_entry> hand_back_all(std::vector<std::string> const& receipt_handles);

/// One ChangeMessageVisibilityBatch: its parameters (Ids "0".."9") and the
/// positions in the planned entries they stand for.
struct release_request {
  sqs::change_message_visibility_batch_params params;
  std::vector<std::size_t> entries;
};

/// The requests for `entries`, at most 10 entries each, in order.
FLOE_DECL std::vector<release_request> release_requests(std::string const& queue_url,
                                                        std::vector<release_entry> const& entries);

struct release_outcome {
  std::vector<std::size_t> released;  // positions in the planned entries
  std::size_t gone = 0;               // ReceiptHandleIsInvalid: deleted or handed out already
  std::vector<std::string> failures;  // "CODE: message" of the others (left to their timeout)
};

/// What the reply to `req` says. An entry the reply does not mention is a
/// failure (sqs::parse_reply lists it as one anyway).
FLOE_DECL release_outcome on_release_reply(release_request const& req, sqs::batch_result const& r);

}  // namespace floe::watch

#if defined(FLOE_HEADER_ONLY)
#include <floe/watch/impl/release.ipp>
#endif
