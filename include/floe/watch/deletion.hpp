#pragma once
// Deleting a batch's messages: which DeleteMessageBatch requests to send
// and what each reply means. Pure (a sans-I/O plan the runner drives).
//
//   watch::deletion d(receipt_handles);
//   while (auto req = d.next()) {
//     auto r = co_await sqs.async_call(d.params(queue_url, *req), ...);
//     if (r) d.on_reply(*req, *r); else d.on_error(*req, r.error());
//   }
//   d.deleted(), d.gone(), d.given_up()
//
// Receipt handles are de-duplicated (a message received twice has two
// handles; one handle is deleted once). Requests carry at most 10 entries;
// an entry's Id is its handle's position in the list, so Ids are distinct.
// What an entry's failure means:
//   ReceiptHandleIsInvalid     the message is gone already: a delete whose
//                              reply was lost and is sent again finds it so.
//                              Counted as gone, not an error
//   another sender-fault code  sending it again would fail the same way:
//                              given up (the message comes back after its
//                              visibility timeout; the ledger makes that
//                              harmless)
//   anything else              retried, up to max_attempts sends in all
// A request that fails as a whole (no reply, 5xx after the client's own
// retries) counts one attempt for each of its entries.

#include <floe/config.hpp>
#include <floe/error.hpp>
#include <floe/sqs/batches.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace floe::watch {

class deletion {
 public:
  /// One request's entries: positions in handles().
  using request = std::vector<std::size_t>;

  FLOE_DECL explicit deletion(std::vector<std::string> receipt_handles, unsigned max_attempts = 4);

  /// The next request to send, or nullopt when every handle is settled.
  /// Hands each waiting handle out once per call sequence: call on_reply or
  /// on_error for a request before it is handed out again.
  FLOE_DECL std::optional<request> next();
  /// The DeleteMessageBatch parameters for `req`.
  FLOE_DECL sqs::delete_message_batch_params params(std::string const& queue_url, request const& req) const;

  FLOE_DECL void on_reply(request const& req, sqs::batch_result const& r);
  FLOE_DECL void on_error(request const& req, error const& e);

  std::vector<std::string> const& handles() const noexcept { return handles_; }
  std::size_t deleted() const noexcept { return count(state::deleted); }
  std::size_t gone() const noexcept { return count(state::gone); }
  std::size_t given_up() const noexcept { return count(state::given_up); }
  /// Handle i is deleted (or was gone already).
  bool removed(std::size_t i) const noexcept { return states_.at(i) == state::deleted || states_.at(i) == state::gone; }
  /// Nothing waiting or in flight.
  FLOE_DECL bool done() const noexcept;
  /// The last failure of each handle given up, for the log.
  std::vector<std::string> const& failures() const noexcept { return failures_; }

 private:
  enum class state { waiting, in_flight, deleted, gone, given_up };
  FLOE_DECL std::size_t count(state s) const noexcept;
  FLOE_DECL void failed(std::size_t i, std::string why, bool final);

  std::vector<std::string> handles_;
  std::vector<state> states_;
  std::vector<unsigned> attempts_;
  std::vector<std::string> failures_;
  unsigned max_attempts_;
};

}  // namespace floe::watch

#if defined(FLOE_HEADER_ONLY)
#include <floe/watch/impl/deletion.ipp>
#endif
