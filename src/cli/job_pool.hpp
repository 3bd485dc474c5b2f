#pragma once
// Jobs started as they are found (a tree walked while its objects move),
// with a bound on how many are in flight.

#include "interrupt.hpp"
#include "output.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <memory>

namespace floe::cli {

/// Single-threaded (the CLI's io_context): submit() and drain() from one
/// coroutine at a time. A SIGINT or SIGTERM (interrupt.hpp) cancels the
/// jobs in flight and submit() starts no more; drain() still waits for
/// every one to unwind (they use the caller's objects).
class job_pool {
 public:
  job_pool(boost::asio::any_io_executor ex, unsigned limit)
      : st_(std::make_shared<state>(std::move(ex))), limit_(limit == 0 ? 1 : limit) {}

  /// Waits until fewer than the limit are in flight, then starts `job`
  /// (a callable returning awaitable<int>, the job's exit code) in a
  /// coroutine of its own, moved there from `job`. What the job uses must
  /// outlive drain(). (Taken by reference: a class-type argument made in a
  /// co_await expression is what GCC 12 corrupts, see s3/client.hpp.)
  template <class Job>
  boost::asio::awaitable<void> submit(Job& job) {
    while (st_->live >= limit_) co_await wait();
    if (interrupted() != 0) co_return;
    ++st_->live;
    auto st = st_;
    spawn_interruptible(st->ex, [st, job = std::make_shared<Job>(std::move(job))]() -> boost::asio::awaitable<void> {
      int rc = exit_error;
      try {
        rc = co_await (*job)();
      } catch (...) {  // cancelled at a co_await (a signal), or out of memory
        rc = exit_error;
      }
      st->worst = worse(st->worst, rc);
      --st->live;
      st->wake.cancel();
    });
  }

  /// Waits for every job started; the worse of their exit codes. A
  /// cancellation of the caller (a signal) neither throws out of this wait
  /// nor ends it early while jobs still run.
  boost::asio::awaitable<int> drain() {
    bool const throwing = co_await boost::asio::this_coro::throw_if_cancelled();
    co_await boost::asio::this_coro::throw_if_cancelled(false);
    while (st_->live > 0) co_await wait();
    co_await boost::asio::this_coro::throw_if_cancelled(throwing);
    co_return st_->worst;
  }

  /// The worse exit code of the jobs finished so far.
  int worst() const noexcept { return st_->worst; }

 private:
  struct state {
    explicit state(boost::asio::any_io_executor e)
        : ex(e), wake(std::move(e), boost::asio::steady_timer::time_point::max()) {}
    boost::asio::any_io_executor ex;
    unsigned live = 0;
    int worst = exit_ok;
    boost::asio::steady_timer wake;  // cancelled when a job ends
  };

  boost::asio::awaitable<void> wait() {
    boost::system::error_code ec;
    co_await st_->wake.async_wait(boost::asio::redirect_error(boost::asio::use_awaitable, ec));
  }

  std::shared_ptr<state> st_;
  unsigned limit_;
};

}  // namespace floe::cli
