#pragma once
// Keeping held messages invisible while they are worked on. Pure: the
// runner asks when the next extension is due and which handles it covers,
// sends ChangeMessageVisibilityBatch, and reports back.
//
// Each message is received with an explicit visibility timeout T. Its
// clock starts when SQS hands it out, somewhere between sending the
// ReceiveMessage and reading its reply, so the keeper counts from the
// moment the receive was *sent*: never later than SQS does. When at most
// half of T is left (`margin`), the message's visibility is set to T again,
// counted from the moment the ChangeMessageVisibility is sent. A message
// is held until released (deleted, or left for the queue to hand out
// again); a handle SQS no longer knows (ReceiptHandleIsInvalid) is dropped.

#include <floe/config.hpp>
#include <floe/sqs/batches.hpp>

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace floe::watch {

class visibility_keeper {
 public:
  using clock = std::chrono::steady_clock;
  using time_point = clock::time_point;

  /// `timeout`: the visibility timeout every receive and extension asks for
  /// (at least 2 s). `margin`: extend when this much or less is left
  /// (default, and at most: half the timeout).
  FLOE_DECL explicit visibility_keeper(std::chrono::seconds timeout,
                                       std::optional<std::chrono::milliseconds> margin = std::nullopt);

  /// Holds a message received by a request sent at `sent`.
  FLOE_DECL void hold(std::string const& receipt_handle, time_point sent);
  /// Stops extending it.
  FLOE_DECL void release(std::string const& receipt_handle);
  FLOE_DECL void release_all();
  std::size_t held() const noexcept { return held_.size(); }
  FLOE_DECL bool holds(std::string const& receipt_handle) const noexcept;

  /// When the next extension is due; nullopt when nothing is held.
  FLOE_DECL std::optional<time_point> next_due() const noexcept;
  /// The handles due at `now` (at most 10 per request), marked in flight.
  FLOE_DECL std::vector<std::string> due(time_point now);
  /// The request for `handles` (Ids: their positions in the list).
  FLOE_DECL sqs::change_message_visibility_batch_params params(std::string const& queue_url,
                                                             std::vector<std::string> const& handles) const;
  /// The extension of `handles` sent at `sent` succeeded for those in
  /// `r.successful`; ReceiptHandleIsInvalid drops a handle; other failures
  /// leave it due again. Returns how many were extended.
  FLOE_DECL std::size_t on_reply(std::vector<std::string> const& handles, time_point sent,
                                 sqs::batch_result const& r);
  /// The whole request failed: each handle is due again (at once).
  FLOE_DECL void on_error(std::vector<std::string> const& handles);

  /// When the message's visibility ends, as far as the keeper knows.
  FLOE_DECL std::optional<time_point> expires(std::string const& receipt_handle) const noexcept;

  std::chrono::seconds timeout() const noexcept { return timeout_; }
  std::chrono::milliseconds margin() const noexcept { return margin_; }

 private:
  struct entry {
    std::string handle;
    time_point expires;
    bool in_flight = false;
  };
  FLOE_DECL entry* find(std::string const& h) noexcept;
  std::chrono::seconds timeout_;
  std::chrono::milliseconds margin_;
  std::vector<entry> held_;
};

}  // namespace floe::watch

#if defined(FLOE_HEADER_ONLY)
#include <floe/watch/impl/visibility.ipp>
#endif
