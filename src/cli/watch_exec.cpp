// watch --exec: spawn, then wait for the exit without blocking the
// watcher's thread (a pidfd readable when the child exits; polling on a
// kernel without pidfd_open).

#include "watch_exec.hpp"

#include "context.hpp"

#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

extern char** environ;

namespace floe::cli {

namespace {

namespace asio = boost::asio;

// Reaps the child unless the run did: a cancelled wait kills its group.
struct child_guard {
  pid_t pid = -1;
  bool reaped = false;
  ~child_guard() {
    if (pid <= 0 || reaped) return;
    ::kill(-pid, SIGKILL);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
};

// The exit as a result: 0 is success.
result<void> exit_result(int status) {
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return {};
  std::string what = WIFEXITED(status) ? "exited with status " + std::to_string(WEXITSTATUS(status))
                     : WIFSIGNALED(status) ? "killed by signal " + std::to_string(WTERMSIG(status))
                                           : "ended abnormally";
  return error(errc::service_error, "the command " + what);
}

}  // namespace

std::vector<std::pair<std::string, std::string>> exec_environment(watch::object_work const& w) {
  return {{"FLOE_BUCKET", w.bucket},
          {"FLOE_KEY", w.key},
          {"FLOE_URI", "s3://" + w.bucket + "/" + w.key},
          {"FLOE_ETAG", w.head_etag.empty() ? w.etag : w.head_etag},
          {"FLOE_SIZE", std::to_string(w.head_size != 0 || !w.size ? w.head_size : *w.size)},
          {"FLOE_VERSION_ID", w.head_version_id.empty() ? w.version_id : w.head_version_id},
          {"FLOE_EVENT_TIME", w.event_time},
          {"FLOE_EVENT_NAME", w.event_name}};
}

asio::awaitable<result<void>> run_exec(std::string const& command, watch::object_work const& w) {
  auto vars = exec_environment(w);
  std::vector<std::string> env_text;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view const s(*e);
    bool ours = false;
    for (auto const& [name, value] : vars) ours = ours || (s.starts_with(name) && s.size() > name.size() && s[name.size()] == '=');
    if (!ours) env_text.emplace_back(s);
  }
  for (auto const& [name, value] : vars) env_text.push_back(name + "=" + value);
  std::vector<char*> envp;
  for (auto& s : env_text) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::string sh = "/bin/sh", dash_c = "-c", cmd = command;
  char* argv[] = {sh.data(), dash_c.data(), cmd.data(), nullptr};

  posix_spawn_file_actions_t fa;
  posix_spawnattr_t attr;
  ::posix_spawn_file_actions_init(&fa);
  ::posix_spawnattr_init(&attr);
  ::posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  ::posix_spawn_file_actions_adddup2(&fa, 2, 1);
  ::posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  ::posix_spawnattr_setpgroup(&attr, 0);
  child_guard child;
  int const rc = ::posix_spawn(&child.pid, argv[0], &fa, &attr, argv, envp.data());
  ::posix_spawn_file_actions_destroy(&fa);
  ::posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    child.pid = -1;
    co_return system_error_of(rc, "--exec: cannot start /bin/sh");
  }

  auto ex = co_await asio::this_coro::executor;
  int const pidfd = static_cast<int>(::syscall(SYS_pidfd_open, child.pid, 0));
  if (pidfd >= 0) {
    asio::posix::stream_descriptor d(ex, pidfd);
    boost::system::error_code ec;
    co_await d.async_wait(asio::posix::stream_descriptor::wait_read, asio::redirect_error(asio::use_awaitable, ec));
    if (ec) co_return error(ec);
  }
  asio::steady_timer poll(ex);
  for (;;) {
    int status = 0;
    pid_t const got = ::waitpid(child.pid, &status, pidfd >= 0 ? 0 : WNOHANG);
    if (got == child.pid) {
      child.reaped = true;
      co_return exit_result(status);
    }
    if (got < 0 && errno != EINTR) {
      int const err = errno;
      child.reaped = true;  // nothing to reap
      co_return system_error_of(err, "--exec: waitpid");
    }
    if (got == 0) {
      poll.expires_after(std::chrono::milliseconds(20));
      co_await poll.async_wait(asio::use_awaitable);
    }
  }
}

}  // namespace floe::cli
