// SIGINT and SIGTERM: cancel, clean up, exit 128 + the signal.

#include "interrupt.hpp"

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <iterator>
#include <list>
#include <stdexcept>
#include <unistd.h>
#include <vector>

namespace floe::cli {

namespace asio = boost::asio;

namespace {

volatile std::sig_atomic_t first_signal = 0;

// Temporary files' paths (the owners' strings), for the last-resort
// handler: a lock-free atomic load is safe in a signal handler.
constexpr std::size_t temp_room = 256;
std::atomic<char const*> temps[temp_room];

// The cancellation signals of the coroutines spawn_interruptible runs.
std::list<asio::cancellation_signal>& jobs() {
  static std::list<asio::cancellation_signal> live;
  return live;
}

// The pipe the handler wakes the loop with; its write end stays open for
// the life of the process (a late signal must not write to a reused fd).
int wake_write = -1;

extern "C" void exit_now(int sig) {
  for (auto& t : temps)
    if (char const* p = t.load(std::memory_order_relaxed)) ::unlink(p);
  int const code = 128 + (sig == SIGALRM ? static_cast<int>(first_signal) : sig);
  ::_exit(code);
}

// SIGINT, SIGTERM: the first is recorded and wakes the loop; a second
// exits at once.
extern "C" void on_signal_async(int sig) {
  if (first_signal != 0) exit_now(sig);
  first_signal = sig;
  int const saved = errno;
  char const b = 1;
  (void)!::write(wake_write, &b, 1);
  errno = saved;
}

void handle(int sig, void (*fn)(int)) {
  struct sigaction sa {};
  sa.sa_handler = fn;
  sigfillset(&sa.sa_mask);
  ::sigaction(sig, &sa, nullptr);
}

int make_wake_pipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0)
    throw std::runtime_error(std::string("cannot create the signal pipe: ") + std::strerror(errno));
  wake_write = fds[1];
  return fds[0];
}

void say(std::string_view s) {
  while (!s.empty()) {
    auto const n = ::write(2, s.data(), s.size());
    if (n <= 0) return;
    s.remove_prefix(static_cast<std::size_t>(n));
  }
}

}  // namespace

int interrupted() noexcept { return first_signal; }

void remember_temp(std::string const& path) noexcept {
  for (auto& t : temps) {
    char const* none = nullptr;
    if (t.compare_exchange_strong(none, path.c_str())) return;
  }
}

void forget_temp(std::string const& path) noexcept {
  for (auto& t : temps) {
    char const* mine = path.c_str();
    if (t.compare_exchange_strong(mine, nullptr)) return;
  }
}

void spawn_interruptible(asio::any_io_executor const& ex, std::function<asio::awaitable<void>()> f) {
  auto& live = jobs();
  auto it = live.emplace(live.end());
  // The signal is released only after the coroutine has unwound (posted
  // from its completion): its cancellation handler lives in the signal.
  asio::co_spawn(ex, std::move(f), asio::bind_cancellation_slot(it->slot(), [ex, it](std::exception_ptr) {
                   asio::post(ex, [it] { jobs().erase(it); });
                 }));
  if (first_signal != 0) it->emit(asio::cancellation_type::terminal);
}

interrupt_watch::interrupt_watch(asio::io_context& io, asio::cancellation_signal& command, std::chrono::seconds grace)
    : wake_(io, make_wake_pipe()), command_(command), grace_(grace) {
  handle(SIGINT, on_signal_async);
  handle(SIGTERM, on_signal_async);
  wait();
}

interrupt_watch::~interrupt_watch() {
  if (first_signal != 0) ::alarm(0);
}

void interrupt_watch::wait() {
  wake_.async_read_some(asio::buffer(&byte_, 1), [this](boost::system::error_code ec, std::size_t) {
    if (ec == asio::error::operation_aborted) return;
    if (first_signal != 0) return on_signal(first_signal);
    if (!ec || ec == asio::error::would_block || ec == asio::error::interrupted) wait();
  });
}

void interrupt_watch::done() {
  if (first_signal != 0) return;
  boost::system::error_code ig;
  wake_.cancel(ig);
}

void interrupt_watch::on_signal(int sig) {
  say(sig == SIGINT ? "floe: interrupted (SIGINT): cancelling; a second signal exits at once\n"
                    : "floe: terminated (SIGTERM): cancelling; a second signal exits at once\n");
  // From here the grace running out ends the process at once (a second
  // signal already does, on_signal_async).
  handle(SIGALRM, exit_now);
  ::alarm(static_cast<unsigned>(grace_.count()));
  command_.emit(asio::cancellation_type::terminal);
  std::vector<asio::cancellation_signal*> now;
  for (auto& s : jobs()) now.push_back(&s);
  for (auto* s : now) s->emit(asio::cancellation_type::terminal);
}

}  // namespace floe::cli
