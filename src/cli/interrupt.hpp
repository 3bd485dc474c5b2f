#pragma once
// Ctrl-C and SIGTERM. The first signal cancels what is in flight: the
// command's coroutine and every coroutine spawned with
// spawn_interruptible get terminal cancellation, so uploads in parts are
// aborted on the store (the library does that on cancellation), temporary
// files are removed as their owners unwind, and destinations stay as they
// were; the process then exits 128 + the signal (130, 143) as soon as the
// work left (such aborts) is done, or after a grace of a few seconds. A
// second signal, or the grace running out, exits at once, removing the
// temporary files still registered first.
//
// The signal handler itself only records the signal (interrupted() says it
// at once, so that code about to act on input cut short by the same Ctrl-C,
// such as stdin's end, can tell) and wakes the loop through a pipe; the
// cancelling runs on the io_context's thread. A second signal's handler
// and the grace's only unlink registered paths and _exit.

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>

#include <chrono>
#include <functional>
#include <string>

namespace floe::cli {

/// The signal that interrupted the command (SIGINT, SIGTERM), or 0: set
/// by the signal handler, before the loop has cancelled anything.
int interrupted() noexcept;

/// Registers a temporary file's path, which a second signal (or the grace
/// running out) removes; `path` must stay unchanged until forget_temp.
/// Best effort: a path beyond the registry's room is not registered (its
/// owner still removes it on the first signal).
void remember_temp(std::string const& path) noexcept;
void forget_temp(std::string const& path) noexcept;

/// Runs `f()` (an awaitable<void>) as a coroutine of its own on `ex`,
/// detached, cancelled (terminal) by the first signal like the command.
void spawn_interruptible(boost::asio::any_io_executor const& ex, std::function<boost::asio::awaitable<void>()> f);

/// Watches SIGINT and SIGTERM on `io` for the command whose cancellation
/// slot is `command`'s; done() once the command has completed.
class interrupt_watch {
 public:
  interrupt_watch(boost::asio::io_context& io, boost::asio::cancellation_signal& command,
                  std::chrono::seconds grace = std::chrono::seconds(5));
  ~interrupt_watch();
  interrupt_watch(interrupt_watch const&) = delete;
  interrupt_watch& operator=(interrupt_watch const&) = delete;

  /// The command completed: without a signal, stop watching (so that
  /// io_context::run returns); after one, nothing (what is left runs out,
  /// under the grace).
  void done();

 private:
  void wait();
  void on_signal(int sig);

  boost::asio::posix::stream_descriptor wake_;  // the read end of the handler's pipe
  char byte_ = 0;
  boost::asio::cancellation_signal& command_;
  std::chrono::seconds grace_;
};

}  // namespace floe::cli
