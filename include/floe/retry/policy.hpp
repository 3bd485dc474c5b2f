#pragma once
// The retry policy: AWS "standard" mode (as botocore and the Java SDK ship it
// by default), as a pure state machine. No clock, no randomness, no I/O: the
// caller passes the random number and sleeps for the delay it is given.
//
//   3 attempts; full-jitter back-off random(0,1) x min(2^n s, 20 s) where n is
//   the number of retries already made; a 500-token quota per client; a retry
//   costs 5 tokens (10 after a timeout); a retried request that succeeds
//   refunds what its last retry cost; a first-try success adds 1 (up to the
//   capacity).
//
// Which requests may be retried at all (see decide()):
//   - a request that never reached the server (nothing written) always may;
//   - otherwise only an idempotent one, and never a conditional write (whose
//     lost reply or 5xx is errc::unknown_outcome, resolved by the conditional
//     layer; any other reply to it is the answer);
//   - a clock-skew rejection of a non-conditional request is retried at once,
//     idempotent or not (the server did nothing);
//   - a request that used what cannot be used again never is: bytes read
//     from a body that cannot be replayed, or handed to a reply sink that
//     cannot be reset (may_send_again: the one rule for every resend).

#include <floe/config.hpp>
#include <floe/error.hpp>
#include <floe/errors/kind.hpp>

#include <chrono>
#include <cstdint>
#include <optional>

namespace floe::retry {

/// Settings for standard mode. Zero durations mean "none".
struct standard_params {
  unsigned max_attempts = 3;                          // first try included
  std::chrono::milliseconds base_delay{1000};         // 2^n x base
  std::chrono::milliseconds max_backoff{20000};       // cap before jitter
  unsigned quota_capacity = 500;
  unsigned retry_cost = 5;
  unsigned timeout_retry_cost = 10;
  unsigned no_retry_increment = 1;
  /// A deadline per operation: the time budget of one call, covering every
  /// attempt, back-off, heal, redirect and resume; when it runs out the
  /// call ends with errc::timeout (service::driver). Zero: none. A call may
  /// set its own (service::request_spec::deadline).
  std::chrono::milliseconds deadline{0};
};

/// The token bucket shared by every request of one client. Not thread-safe:
/// it lives beside the client, on the client's executor.
class quota {
 public:
  explicit quota(standard_params const& p = {}) noexcept
      : capacity_(p.quota_capacity), available_(p.quota_capacity) {}

  unsigned available() const noexcept { return available_; }
  unsigned capacity() const noexcept { return capacity_; }

  /// Takes `cost` tokens; false (and nothing taken) if fewer are left.
  bool try_acquire(unsigned cost) noexcept {
    if (cost > available_) return false;
    available_ -= cost;
    return true;
  }
  /// Gives tokens back, never above the capacity.
  void release(unsigned n) noexcept {
    available_ = (capacity_ - available_ < n) ? capacity_ : available_ + n;
  }

 private:
  unsigned capacity_;
  unsigned available_;
};

/// What the caller knows about the request, fixed for the whole operation.
struct request_traits {
  /// True unless the caller says otherwise: every S3 and STS operation floe
  /// sends is safe to send again, POSTs included (DeleteObjects, the
  /// multipart calls, STS), as every AWS SDK treats them. A caller sending a
  /// request that must not run twice sets false: it is then neither retried
  /// after reaching the server nor resent on a connection found closed.
  bool idempotent = true;
  bool conditional_write = false;  // a write carrying If-Match / If-None-Match
  /// The request body can be read again (memory, a file): false for a
  /// stream, which can be read once. Says nothing of the reply's sink.
  bool replayable_body = true;
};

/// What happened on one attempt.
struct attempt_outcome {
  errors::kind kind = errors::kind::success;
  bool reached_server = true;      // false: nothing was written (connect/TLS failed)
  bool body_consumed = false;      // some request-body bytes were read from the source
  bool sink_dirty = false;         // reply bytes went to a sink that cannot be reset
  bool timed_out = false;          // a connect or progress timeout ended it
  bool reply_received = true;      // false: a transport failure, no complete reply
};

enum class action : std::uint8_t {
  done,               // success: nothing more to do
  retry,              // sleep `delay`, then try again
  stop,               // give up and report `reason`
};

/// Why a retry loop stopped; errc::ok when the last reply is the answer
/// (a success, or an error kind that is not retryable).
struct decision {
  action what = action::done;
  std::chrono::nanoseconds delay{0};
  errc reason = errc::ok;
};

/// The retry state of one operation (one logical request, all its attempts).
class operation {
 public:
  explicit operation(standard_params const& p, quota& q) noexcept : params_(&p), quota_(&q) {}

  /// 1-based number of the attempt about to be made (or just made).
  unsigned attempt() const noexcept { return attempt_; }
  /// Tokens the last retry took (refunded on success).
  unsigned last_cost() const noexcept { return last_cost_; }
  /// The time left before the operation's deadline, told before each
  /// on_outcome when there is one: a retry whose back-off would end at or
  /// past it stops with errc::timeout instead (no quota taken).
  void time_left(std::chrono::nanoseconds left) noexcept { time_left_ = left; }

  /// Decides what to do after an attempt ended with `o`. `random01` is a
  /// uniform draw in [0, 1) used for the jitter. On action::retry the
  /// attempt counter is advanced and the quota charged.
  FLOE_DECL decision on_outcome(request_traits const& r, attempt_outcome const& o,
                                double random01) noexcept;

 private:
  standard_params const* params_;
  quota* quota_;
  unsigned attempt_ = 1;
  unsigned last_cost_ = 0;
  std::optional<std::chrono::nanoseconds> time_left_;
};

/// Full-jitter back-off before retry number `retries_made + 1`:
/// random01 x min(2^retries_made x base, max_backoff).
FLOE_DECL std::chrono::nanoseconds backoff(standard_params const& p, unsigned retries_made,
                                           double random01) noexcept;

/// The one rule for sending a request again, whoever sends it — a retry,
/// the heal after stale credentials, a followed redirect, the resend after
/// a pooled connection found closed, a hedge: nothing was used that cannot
/// be used again. A body that cannot be replayed (a stream) may be sent
/// again while none of it was read (one still waiting for 100 Continue);
/// a reply sink that cannot be reset (a stream: a download's file or
/// function) while it has taken no byte — an error reply never reaches it.
/// A sink that took bytes is its consumer's to resume (a streamed GET
/// resumes with a Range).
constexpr bool may_send_again(request_traits const& r, bool body_consumed, bool sink_dirty) noexcept {
  return !(body_consumed && !r.replayable_body) && !sink_dirty;
}

/// Whether the request may be sent again after this outcome, ignoring
/// attempts and quota. Returns errc::ok if it may, otherwise why not:
/// unknown_outcome (a conditional write that reached the server and got no
/// usable answer), body_not_replayable, or the kind's own errc.
FLOE_DECL errc may_retry(request_traits const& r, attempt_outcome const& o) noexcept;

/// A reused keep-alive connection the server had already closed (nothing of
/// a reply arrived): whether the request is sent again on a new connection,
/// outside the attempt count and the quota. Returns nullptr if it is,
/// otherwise why not, for the error's message. No reply has begun, so no
/// sink took a byte.
FLOE_DECL char const* stale_resend_refusal(request_traits const& r, bool body_consumed, unsigned resends_made,
                                           unsigned max_resends) noexcept;

}  // namespace floe::retry

#if defined(FLOE_HEADER_ONLY)
#include <floe/retry/impl/policy.ipp>
#endif
