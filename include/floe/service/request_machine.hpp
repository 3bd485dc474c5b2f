#pragma once
// The decisions of one signed (or unsigned) request, as a sans-I/O state
// machine: the runner (service/driver.hpp) does what it is told — get
// credentials, sign and send, wait, invalidate, ask the service — and
// feeds back what happened; the machine answers the next action. No I/O,
// no clock, no randomness (the caller passes the draw): a unit test drives
// it without sockets.
//
// The rules it keeps, for every service alike:
// - Retries: AWS "standard" mode through retry::operation (attempts, the
//   client's quota charged per retry and refunded on success, full-jitter
//   back-off). A throttled or transient reply, a transport failure, and a
//   code the service names as worth another try (STS's
//   IDPCommunicationError, ...) are retried while it allows; a reply of any
//   other kind is the answer.
// - A conditional write is never resent by the retry loop: a lost reply or
//   a 5xx to it is errc::unknown_outcome (retry::may_retry).
// - One resend rule (retry::may_send_again) for the retries, the heal and
//   the redirect alike: a request is never sent again once bytes were read
//   from a body that cannot be replayed or went to a sink that cannot be
//   reset; until then it may be (a streamed download whose sink took no
//   byte heals and follows a redirect like any other request).
// - Clock skew: the first clock-skew rejection is retried at once with the
//   offset the reply's Date gives (within attempts and quota, never a
//   conditional write); a second one is the answer.
// - Heal once: a reply classified stale_credentials, when the credentials
//   can be refreshed and the body replayed, invalidates the generation that
//   signed it and sends once more with a fresh set: outside the attempt
//   count and the quota, never twice. When the provider declines (the same
//   generation comes back), the request fails at once. A success after a
//   heal with a newer generation is confirmed to the provider.
// - A redirect the service can follow (S3's region redirect) is offered to
//   it once; followed, the request is sent once more to where it now goes.
// - A deadline (params::deadline, a point on the runner's steady clock):
//   no attempt starts, and no back-off is waited, that would begin or end
//   past it — the request fails at once with errc::timeout instead; the
//   runner cuts the attempt in flight when it passes (on_deadline). The
//   machine reads no clock: the runner tells it the time (at()) before each
//   event when a deadline is set.

#include <floe/config.hpp>
#include <floe/error.hpp>
#include <floe/errors/kind.hpp>
#include <floe/retry/policy.hpp>

#include <chrono>
#include <cstdint>
#include <optional>

namespace floe::service {

/// What the runner does next.
enum class step : std::uint8_t {
  get_credentials,  // ask the provider; then on_credentials or on_credentials_failed
  send,             // wait `delay`, then sign (when the request is signed) and send
  invalidate,       // provider.invalidate(generation); then get_credentials
  ask_service,      // offer the redirect to the service; then on_service
  done,             // success: confirm `generation` to the provider when not 0
  fail,             // the request failed: see `why` and `stop`
};

/// How a request failed.
enum class failure : std::uint8_t {
  none,
  reply,             // the last reply is the answer (its error body says what)
  transport,         // no usable reply (connect, reset, timeout, ...)
  credentials,       // the provider had no credentials
  declined_refresh,  // the provider declined to refresh after a stale-credentials reply
  deadline,          // the operation's deadline ran out (stop: errc::timeout)
};

struct action {
  step what = step::fail;
  /// send: how long to wait first (a back-off).
  std::chrono::nanoseconds delay{0};
  /// send: sign with this clock offset from now on (learnt from a
  /// clock-skew rejection's Date).
  std::optional<std::chrono::seconds> skew;
  /// invalidate: the generation to invalidate; done: the one to confirm (0: none).
  std::uint64_t generation = 0;
  /// fail: how.
  failure why = failure::none;
  /// fail: why the request was not sent again: errc::ok when the failure is
  /// itself the answer (a non-retryable reply, a final transport error);
  /// else attempts_exhausted, retry_quota_exhausted, unknown_outcome,
  /// body_not_replayable, or the kind's own code.
  errc stop = errc::ok;
};

/// What the runner tells of a reply that arrived whole.
struct reply_facts {
  errors::kind kind = errors::kind::success;  // the reply classified (errors/classify.hpp)
  std::optional<std::chrono::seconds> skew;   // its Date minus the local clock, when it had one
  bool body_consumed = false;                 // bytes of a request body that cannot be replayed were read
  bool sink_dirty = false;                    // reply bytes went to a sink that cannot be reset
  bool service_retryable = false;             // the service's own "try again" code (not a kind)
};

/// What the runner tells of an attempt that got no usable reply.
struct transport_facts {
  bool reached_server = true;  // false: nothing was written (connect, TLS, proxy failed)
  bool body_consumed = false;  // bytes of a request body that cannot be replayed were read
  bool sink_dirty = false;     // reply bytes went to a sink that cannot be reset
  bool timed_out = false;
  /// The request or the reply is wrong (a bad header, a reply over a
  /// limit, a proxy refusing CONNECT): trying again changes nothing.
  bool final = false;
};

class request_machine {
 public:
  struct params {
    retry::request_traits traits;  // idempotent, conditional write, replayable request body
    bool signs = true;             // false: an unsigned request (no credentials asked)
    bool refreshable = false;      // the provider can refresh (a heal is possible)
    /// The operation's deadline on the runner's steady clock; none: no
    /// deadline.
    std::optional<std::chrono::steady_clock::time_point> deadline;
  };

  /// `p` and `q` must outlive the machine (the client's settings and quota).
  FLOE_DECL request_machine(retry::standard_params const& p, retry::quota& q, params pr) noexcept;

  FLOE_DECL action start() noexcept;
  /// The provider handed out a set of `generation`.
  FLOE_DECL action on_credentials(std::uint64_t generation) noexcept;
  FLOE_DECL action on_credentials_failed() noexcept;
  /// A whole reply arrived. `random01`: a uniform draw in [0, 1) for the jitter.
  FLOE_DECL action on_reply(reply_facts const& f, double random01) noexcept;
  /// An attempt ended without a usable reply.
  FLOE_DECL action on_transport_failure(transport_facts const& t, double random01) noexcept;
  /// The service's answer to ask_service: whether it follows the redirect
  /// (and is aimed anew).
  FLOE_DECL action on_service(bool followed) noexcept;
  /// The deadline passed while the runner waited (an attempt in flight, a
  /// credentials fetch): the runner cut it.
  FLOE_DECL action on_deadline() noexcept;
  /// The time now on the deadline's clock; the runner tells it before each
  /// event when a deadline is set (without one it is never read).
  void at(std::chrono::steady_clock::time_point now) noexcept { now_ = now; }
  /// Sets (or moves) the deadline params::deadline gave.
  void set_deadline(std::chrono::steady_clock::time_point d) noexcept { p_.deadline = d; }

  /// The 1-based attempt being made (or just made): retries counted, the
  /// heal and the redirect not.
  unsigned attempt() const noexcept { return op_.attempt(); }
  /// Requests sent, every one counted.
  unsigned sends() const noexcept { return sends_; }
  /// The generation that signed the last request (0: unsigned).
  std::uint64_t signed_generation() const noexcept { return generation_; }
  bool healed() const noexcept { return healed_; }
  bool redirected() const noexcept { return redirected_; }
  bool skew_corrected() const noexcept { return skew_corrected_; }

 private:
  action send(std::chrono::nanoseconds delay = {}) noexcept;
  bool past_deadline(std::chrono::nanoseconds delay) const noexcept {
    return p_.deadline && now_ + delay >= *p_.deadline;
  }
  void tell_time_left() noexcept {
    if (p_.deadline) op_.time_left(*p_.deadline - now_);
  }
  action fail(failure why, errc stop) noexcept;
  bool can_resend(bool body_consumed, bool sink_dirty) const noexcept {
    return retry::may_send_again(p_.traits, body_consumed, sink_dirty);
  }

  retry::operation op_;
  params p_;
  std::chrono::steady_clock::time_point now_{};
  unsigned sends_ = 0;
  std::uint64_t generation_ = 0;
  std::uint64_t stale_generation_ = 0;
  bool healed_ = false;
  bool redirected_ = false;
  bool skew_corrected_ = false;
};

}  // namespace floe::service

#if defined(FLOE_HEADER_ONLY)
#include <floe/service/impl/request_machine.ipp>
#endif
