#pragma once
// The deadlines of a client's connections: one timer, the watchdog, for
// every connection that has an operation under way (connect, TLS handshake,
// request, reply).
//
// Three bounds, any of which may be off: no progress for the idle limit;
// a reply head not complete by a fixed time however its bytes trickle
// (watch_head); a body moving slower than a rate over each window of a
// given length (watch_speed, as curl's --speed-limit and --speed-time).
//
// An I/O operation only stamps its connection's last progress; the timer is
// armed at the earliest deadline and re-armed when it fires, or when a
// sooner deadline appears (a connect or 100-continue limit shorter than the
// idle one). A connection that finishes a request costs no timer operation:
// with many requests in flight, a per-connection timer cancelled and
// re-armed per request cost ~2 µs of CPU each (timer-queue work, a posted
// cancellation, an extra epoll poll). When the last connection stops being
// watched, a posted check cancels the timer unless another request has
// started meanwhile, so io_context::run still returns once nothing is in
// flight.

#include <floe/config.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/system/error_code.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace floe::http::detail {

class watchdog;

// What the watchdog keeps of one connection. The connection derives from
// it and says, in on_expired, how its operations are cancelled.
class deadline {
 public:
  explicit deadline(std::shared_ptr<watchdog> dog) noexcept : dog_(std::move(dog)) {}
  deadline(deadline const&) = delete;
  deadline& operator=(deadline const&) = delete;

  // What ran out when the connection timed out.
  enum class expiry : std::uint8_t { idle, head, speed };

  // Starts (or restarts) watching: no progress for `limit` cancels the
  // connection's operations and marks it timed out. 0: no limit. Ends a
  // head or speed bound set before.
  inline void watch(std::chrono::milliseconds limit);
  // Also: what is read from now on must complete a reply head within
  // `limit`, however its bytes trickle, until end_head(). 0: no such bound.
  inline void watch_head(std::chrono::milliseconds limit);
  void end_head() noexcept { head_due_ = std::chrono::steady_clock::time_point::max(); }
  // Also: fewer than `bytes_per_second` x `window` bytes moved within any
  // window of `window` from now on (windows back to back) times out, until
  // stop_speed(). 0 bytes_per_second: no such bound.
  inline void watch_speed(std::uint64_t bytes_per_second, std::chrono::milliseconds window);
  void stop_speed() noexcept { speed_bytes_ = 0; }
  // Bytes moved, for the speed bound (progress() stamps the time).
  void count(std::size_t bytes) noexcept { window_bytes_ += bytes; }
  // After a transfer that moved bytes. If a bound ran out while this
  // transfer's completion was already queued, the watchdog marked the
  // connection timed out but had nothing to cancel: the transfer did
  // progress, so the connection is watched again rather than left without
  // a deadline (an idle clock restarts; a head or speed bound already past
  // runs out again at once, cancelling the next transfer).
  inline void progress();
  inline void stop_watch() noexcept;
  bool timed_out() const noexcept { return timed_out_; }
  // The limit last watched for (0: none).
  std::chrono::milliseconds limit() const noexcept { return limit_; }
  // What ran out, with timed_out(); and that in words: "timed out after
  // 30 s", "the reply head took longer than 30 s", "slower than 1000
  // bytes/s for 10 s".
  expiry expired() const noexcept { return expired_; }
  FLOE_DECL std::string expiry_words() const;

 protected:
  ~deadline() { stop_watch(); }

 private:
  friend class watchdog;
  static constexpr std::size_t not_watched = static_cast<std::size_t>(-1);

  // Called by the watchdog once the deadline has passed, after it stopped
  // watching: cancels whatever the connection has under way.
  virtual void on_expired() noexcept = 0;

  // The soonest of the bounds (max(): none is set).
  std::chrono::steady_clock::time_point due() const noexcept {
    auto d = limit_.count() > 0 ? last_progress_ + limit_ : std::chrono::steady_clock::time_point::max();
    if (head_due_ < d) d = head_due_;
    if (speed_bytes_ > 0 && window_start_ + window_ < d) d = window_start_ + window_;
    return d;
  }
  // At `now`, past due(): whether a bound ran out (recorded in expired_),
  // or only a speed window ended fast enough (the next one starts).
  FLOE_DECL bool run_out(std::chrono::steady_clock::time_point now) noexcept;
  bool any_bound() const noexcept {
    return limit_.count() > 0 || head_due_ != std::chrono::steady_clock::time_point::max() || speed_bytes_ > 0;
  }

  std::shared_ptr<watchdog> dog_;
  std::chrono::steady_clock::time_point last_progress_{};
  std::chrono::milliseconds limit_{0};
  std::chrono::steady_clock::time_point head_due_ = std::chrono::steady_clock::time_point::max();
  std::chrono::milliseconds head_limit_{0};
  std::uint64_t speed_bytes_ = 0;  // per second; 0: no speed bound
  std::chrono::milliseconds window_{0};
  std::chrono::steady_clock::time_point window_start_{};
  std::uint64_t window_bytes_ = 0;
  expiry expired_ = expiry::idle;
  std::size_t slot_ = not_watched;  // index in the watchdog's list
  bool timed_out_ = false;
};

class watchdog : public std::enable_shared_from_this<watchdog> {
 public:
  using steady = std::chrono::steady_clock;

  explicit watchdog(boost::asio::any_io_executor const& ex) : timer_(ex) {}

  void add(deadline& d, steady::time_point due) {
    if (d.slot_ == deadline::not_watched) {
      d.slot_ = watched_.size();
      watched_.push_back(&d);
    }
    if (!armed_ || due < armed_due_) arm(due);
  }

  void remove(deadline& d) noexcept {
    auto const i = d.slot_;
    deadline* const last = watched_.back();
    watched_[i] = last;
    last->slot_ = i;
    watched_.pop_back();
    d.slot_ = deadline::not_watched;
    if (watched_.empty() && armed_) post_idle_check();
  }

 private:
  FLOE_DECL void arm(steady::time_point due);
  FLOE_DECL void on_timer(boost::system::error_code ec, std::uint64_t gen);
  FLOE_DECL void post_idle_check() noexcept;
  FLOE_DECL void disarm() noexcept;

  boost::asio::steady_timer timer_;
  std::vector<deadline*> watched_;
  steady::time_point armed_due_{};
  std::uint64_t gen_ = 0;
  bool armed_ = false;
  bool idle_check_posted_ = false;
};

inline void deadline::watch(std::chrono::milliseconds limit) {
  limit_ = limit;
  timed_out_ = false;
  end_head();
  stop_speed();
  if (limit.count() <= 0) return stop_watch();
  last_progress_ = std::chrono::steady_clock::now();
  dog_->add(*this, last_progress_ + limit_);
}

inline void deadline::watch_head(std::chrono::milliseconds limit) {
  if (limit.count() <= 0) return end_head();
  auto const now = std::chrono::steady_clock::now();
  head_limit_ = limit;
  head_due_ = now + limit;
  if (limit_.count() <= 0) last_progress_ = now;
  dog_->add(*this, due());
}

inline void deadline::watch_speed(std::uint64_t bytes_per_second, std::chrono::milliseconds window) {
  if (bytes_per_second == 0 || window.count() <= 0) return stop_speed();
  speed_bytes_ = bytes_per_second;
  window_ = window;
  window_start_ = std::chrono::steady_clock::now();
  window_bytes_ = 0;
  if (limit_.count() <= 0) last_progress_ = window_start_;
  dog_->add(*this, due());
}

inline void deadline::progress() {
  auto const now = std::chrono::steady_clock::now();
  if (slot_ != not_watched) {
    last_progress_ = now;
    return;
  }
  if (!timed_out_) return;
  timed_out_ = false;
  last_progress_ = now;
  if (any_bound()) dog_->add(*this, due());
}

inline void deadline::stop_watch() noexcept {
  if (slot_ != not_watched) dog_->remove(*this);
}

}  // namespace floe::http::detail

#if defined(FLOE_HEADER_ONLY)
#include <floe/http/impl/deadline.ipp>
#endif
