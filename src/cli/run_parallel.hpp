#pragma once
// Many objects at once: fn(0..n-1) with a bounded number in flight, and the
// exit code of the whole.

#include "interrupt.hpp"
#include "output.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <cstddef>
#include <memory>

namespace floe::cli {

/// Of two exit codes, the first error's, preferring a plain error over the rest.
inline int worse(int a, int b) {
  if (a == exit_ok) return b;
  if (b == exit_error) return b;
  return a;
}

/// Runs fn(0..n-1), each an awaitable<int> exit code, with at most `conc`
/// in flight; completes when all are done, with the worse of their codes.
/// A SIGINT or SIGTERM (interrupt.hpp) cancels those in flight and starts
/// no more; this still waits for every one to unwind (they use the
/// caller's objects).
template <class Fn>
boost::asio::awaitable<int> run_parallel(std::size_t n, unsigned conc, Fn& fn) {
  namespace asio = boost::asio;
  auto ex = co_await asio::this_coro::executor;
  struct state {
    explicit state(asio::any_io_executor e) : done(e, asio::steady_timer::time_point::max()) {}
    std::size_t next = 0;
    std::size_t live = 0;
    int worst = exit_ok;
    asio::steady_timer done;
  };
  auto st = std::make_shared<state>(ex);
  std::size_t const workers = std::min<std::size_t>(conc, n);
  st->live = workers;
  for (std::size_t w = 0; w < workers; ++w) {
    spawn_interruptible(ex, [st, n, &fn]() -> asio::awaitable<void> {
      while (st->next < n && interrupted() == 0) {
        std::size_t const i = st->next++;
        int rc = exit_error;
        try {
          rc = co_await fn(i);
        } catch (...) {  // cancelled at a co_await (a signal), or out of memory
        }
        st->worst = worse(st->worst, rc);
      }
      if (--st->live == 0) st->done.cancel();
    });
  }
  // A cancellation of this coroutine (a signal) must not end the wait while
  // workers still run: waits are neither thrown out of nor ended early.
  bool const throwing = co_await asio::this_coro::throw_if_cancelled();
  co_await asio::this_coro::throw_if_cancelled(false);
  while (st->live > 0) {
    boost::system::error_code ec;
    co_await st->done.async_wait(asio::redirect_error(asio::use_awaitable, ec));
  }
  co_await asio::this_coro::throw_if_cancelled(throwing);
  co_return st->worst;
}

}  // namespace floe::cli
