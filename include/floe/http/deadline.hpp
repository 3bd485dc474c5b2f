#pragma once
// The deadlines of a client's connections: one timer, the watchdog, for
// every connection that has an operation under way (connect, TLS handshake,
// request, reply).
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

  // Starts (or restarts) watching: no progress for `limit` cancels the
  // connection's operations and marks it timed out. 0: no limit.
  inline void watch(std::chrono::milliseconds limit);
  // After a transfer that moved bytes. If the deadline passed while this
  // transfer's completion was already queued, the watchdog marked the
  // connection timed out but had nothing to cancel: the transfer did
  // progress, so the clock restarts instead of leaving the rest of the
  // exchange without a deadline.
  void progress() {
    if (slot_ != not_watched)
      last_progress_ = std::chrono::steady_clock::now();
    else if (timed_out_ && limit_.count() > 0)
      watch(limit_);
  }
  inline void stop_watch() noexcept;
  bool timed_out() const noexcept { return timed_out_; }
  // The limit last watched for (0: none).
  std::chrono::milliseconds limit() const noexcept { return limit_; }

 protected:
  ~deadline() { stop_watch(); }

 private:
  friend class watchdog;
  static constexpr std::size_t not_watched = static_cast<std::size_t>(-1);

  // Called by the watchdog once the deadline has passed, after it stopped
  // watching: cancels whatever the connection has under way.
  virtual void on_expired() noexcept = 0;

  std::chrono::steady_clock::time_point due() const noexcept { return last_progress_ + limit_; }

  std::shared_ptr<watchdog> dog_;
  std::chrono::steady_clock::time_point last_progress_{};
  std::chrono::milliseconds limit_{0};
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
  if (limit.count() <= 0) return stop_watch();
  last_progress_ = std::chrono::steady_clock::now();
  dog_->add(*this, last_progress_ + limit_);
}

inline void deadline::stop_watch() noexcept {
  if (slot_ != not_watched) dog_->remove(*this);
}

}  // namespace floe::http::detail

#if defined(FLOE_HEADER_ONLY)
#include <floe/http/impl/deadline.ipp>
#endif
