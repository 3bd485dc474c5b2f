// SIGINT and SIGTERM: cancel, clean up, exit 128 + the signal.

#include "interrupt.hpp"

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>

#include <atomic>
#include <csignal>
#include <cstring>
#include <iterator>
#include <list>
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

extern "C" void exit_now(int sig) {
  for (auto& t : temps)
    if (char const* p = t.load(std::memory_order_relaxed)) ::unlink(p);
  int const code = 128 + (sig == SIGALRM ? static_cast<int>(first_signal) : sig);
  ::_exit(code);
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
    : signals_(io, SIGINT, SIGTERM), command_(command), grace_(grace) {
  signals_.async_wait([this](boost::system::error_code ec, int sig) {
    if (!ec) on_signal(sig);
  });
}

interrupt_watch::~interrupt_watch() {
  if (first_signal != 0) ::alarm(0);
}

void interrupt_watch::done() {
  if (first_signal != 0) return;
  boost::system::error_code ig;
  signals_.cancel(ig);
}

void interrupt_watch::on_signal(int sig) {
  first_signal = sig;
  say(sig == SIGINT ? "floe: interrupted (SIGINT): cancelling; a second signal exits at once\n"
                    : "floe: terminated (SIGTERM): cancelling; a second signal exits at once\n");
  // From here a second signal, or the grace running out, ends the process
  // at once; asio hands the two signals back first.
  boost::system::error_code ig;
  signals_.clear(ig);
  struct sigaction sa {};
  sa.sa_handler = exit_now;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
  ::sigaction(SIGALRM, &sa, nullptr);
  ::alarm(static_cast<unsigned>(grace_.count()));
  command_.emit(asio::cancellation_type::terminal);
  std::vector<asio::cancellation_signal*> now;
  for (auto& s : jobs()) now.push_back(&s);
  for (auto* s : now) s->emit(asio::cancellation_type::terminal);
}

}  // namespace floe::cli
