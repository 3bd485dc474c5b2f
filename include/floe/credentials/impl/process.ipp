#pragma once
#include <floe/credentials/process.hpp>

#include <floe/credentials/json_credentials.hpp>

#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace floe::credentials {

FLOE_DECL result<std::vector<std::string>> split_command_line(std::string_view s) {
  std::vector<std::string> words;
  std::string cur;
  bool in_word = false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char const c = s[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (in_word) words.push_back(std::move(cur));
      cur.clear();
      in_word = false;
      continue;
    }
    in_word = true;
    if (c == '\'') {
      auto end = s.find('\'', i + 1);
      if (end == std::string_view::npos) return error(errc::invalid_argument, "credential_process: unterminated ' quote");
      cur.append(s.substr(i + 1, end - i - 1));
      i = end;
    } else if (c == '"') {
      std::size_t j = i + 1;
      for (;; ++j) {
        if (j >= s.size()) return error(errc::invalid_argument, "credential_process: unterminated \" quote");
        if (s[j] == '"') break;
        if (s[j] == '\\' && j + 1 < s.size() &&
            (s[j + 1] == '\\' || s[j + 1] == '"' || s[j + 1] == '$' || s[j + 1] == '`' || s[j + 1] == '\n')) {
          ++j;
          if (s[j] != '\n') cur.push_back(s[j]);
          continue;
        }
        cur.push_back(s[j]);
      }
      i = j;
    } else if (c == '\\') {
      if (i + 1 >= s.size()) return error(errc::invalid_argument, "credential_process: ends in a backslash");
      ++i;
      if (s[i] != '\n') cur.push_back(s[i]);
    } else {
      cur.push_back(c);
    }
  }
  if (in_word) words.push_back(std::move(cur));
  if (words.empty()) return error(errc::invalid_argument, "credential_process: the command is empty");
  return words;
}

namespace detail {
struct child_state {
  pid_t pid = -1;
  bool timed_out = false;
  bool reaped = false;
  int status = 0;
  void kill_group() const noexcept {
    if (pid > 0) ::kill(-pid, SIGKILL);
  }
};
}  // namespace detail

FLOE_DECL boost::asio::awaitable<result<std::string>> run_credential_process(boost::asio::any_io_executor ex,
                                                                             std::vector<std::string> argv,
                                                                             std::chrono::milliseconds timeout,
                                                                             std::size_t limit) {
  namespace asio = boost::asio;
  std::string const program = detail::printable(argv.empty() ? std::string() : argv.front(), 256);
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) co_return error(errc::credentials_unavailable, std::string("pipe: ") + std::strerror(errno));
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t attr;
  ::posix_spawn_file_actions_init(&fa);
  ::posix_spawnattr_init(&attr);
  ::posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
  ::posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  ::posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  ::posix_spawnattr_setpgroup(&attr, 0);
  std::vector<char*> args;
  for (auto& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  auto st = std::make_shared<detail::child_state>();
  int const rc = ::posix_spawnp(&st->pid, args[0], &fa, &attr, args.data(), environ);
  ::posix_spawn_file_actions_destroy(&fa);
  ::posix_spawnattr_destroy(&attr);
  ::close(fds[1]);
  if (rc != 0) {
    ::close(fds[0]);
    co_return error(errc::credentials_unavailable, "credential_process " + program + " cannot be started: " + std::strerror(rc));
  }

  asio::posix::stream_descriptor out(ex, fds[0]);
  asio::steady_timer deadline(ex);
  deadline.expires_after(timeout);
  deadline.async_wait([st](boost::system::error_code ec) {
    if (ec || st->reaped) return;
    st->timed_out = true;
    st->kill_group();
  });

  std::string data;
  bool too_large = false;
  std::array<char, 4096> buf;
  for (;;) {
    boost::system::error_code ec;
    std::size_t n = co_await out.async_read_some(asio::buffer(buf), asio::redirect_error(asio::use_awaitable, ec));
    data.append(buf.data(), n);
    if (data.size() > limit) {
      too_large = true;
      st->kill_group();
      break;
    }
    if (ec) break;  // EOF: the process closed its stdout (usually: it exited)
  }
  out.close();
  // Reap it: poll, since it may linger after closing stdout; the deadline
  // timer kills it if it never exits.
  asio::steady_timer poll(ex);
  for (;;) {
    pid_t const w = ::waitpid(st->pid, &st->status, WNOHANG);
    if (w == st->pid || (w < 0 && errno != EINTR)) break;
    poll.expires_after(std::chrono::milliseconds(5));
    boost::system::error_code ec;
    co_await poll.async_wait(asio::redirect_error(asio::use_awaitable, ec));
  }
  st->reaped = true;
  deadline.cancel();
  if (st->timed_out)
    co_return error(errc::timeout, "credential_process " + program + " did not finish within " +
                                       std::to_string(timeout.count()) + " ms and was killed");
  if (too_large)
    co_return error(errc::reply_too_large, "credential_process " + program + " wrote more than " +
                                               std::to_string(limit) + " bytes");
  if (WIFSIGNALED(st->status))
    co_return error(errc::credentials_unavailable,
                    "credential_process " + program + " was killed by signal " + std::to_string(WTERMSIG(st->status)));
  if (WIFEXITED(st->status) && WEXITSTATUS(st->status) != 0)
    co_return error(errc::credentials_unavailable, "credential_process " + program + " exited with status " +
                                                       std::to_string(WEXITSTATUS(st->status)) +
                                                       " (its stderr, if any, is above)");
  co_return data;
}

FLOE_DECL result<std::unique_ptr<process_source>> process_source::create(boost::asio::any_io_executor ex,
                                                                        process_config cfg) {
  auto argv = split_command_line(cfg.command);
  if (!argv) {
    auto e = argv.error();
    e.diag.message = "profile " + detail::printable(cfg.profile) + ": " + e.diag.message;
    return e;
  }
  return std::unique_ptr<process_source>(new process_source(std::move(ex), std::move(cfg), std::move(*argv)));
}

FLOE_DECL std::string process_source::describe() const {
  return "credential_process " + detail::printable(argv_.front(), 256) + " (profile " + detail::printable(cfg_.profile) + ")";
}

FLOE_DECL boost::asio::awaitable<result<credentials>> process_source::fetch() {
  auto out = co_await run_credential_process(ex_, argv_, cfg_.timeout, 64 * 1024);
  if (!out) co_return out.error();
  std::string const what = describe();
  auto c = parse_json_credentials(*out, json_credentials_kind::process, what);
  std::fill(out->begin(), out->end(), '\0');
  if (!c) co_return c.error();
  c->source = what;
  co_return c;
}

}  // namespace floe::credentials
