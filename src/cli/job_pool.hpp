#pragma once
// Jobs started as they are found (a tree walked while its objects move),
// with a bound on how many are in flight.

#include "output.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <memory>

namespace floe::cli {

/// Single-threaded (the CLI's io_context): submit() and drain() from one
/// coroutine at a time.
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
    ++st_->live;
    auto st = st_;
    boost::asio::co_spawn(
        st->ex,
        [st, job = std::move(job)]() mutable -> boost::asio::awaitable<void> {
          int rc = exit_error;
          try {
            rc = co_await job();
          } catch (...) {
            rc = exit_error;
          }
          st->worst = worse(st->worst, rc);
          --st->live;
          st->wake.cancel();
        },
        boost::asio::detached);
  }

  /// Waits for every job started; the worse of their exit codes.
  boost::asio::awaitable<int> drain() {
    while (st_->live > 0) co_await wait();
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
