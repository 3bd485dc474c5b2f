#pragma once
// A helper program a test starts for itself (the test proxy, mostly): run
// with stdout on a pipe, its first line read as its ready line, terminated
// (SIGTERM, then reaped) when the object goes, and never outliving the test
// program (PR_SET_PDEATHSIG), even one killed by a meson timeout.

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace floe::test {

class child_process {
 public:
  child_process() = default;
  child_process(child_process const&) = delete;
  child_process& operator=(child_process const&) = delete;
  ~child_process() { stop(); }

  /// Starts `argv` (argv[0] looked up on PATH) and returns its first stdout
  /// line (for the test proxy: {"port": P, "control_port": C, "tls_port": T}).
  /// Throws, naming the command, when it prints nothing.
  std::string start(std::vector<std::string> const& argv) {
    if (argv.empty()) throw std::invalid_argument("child_process::start: no command");
    stop();
    int fds[2];
    if (::pipe(fds) != 0) throw std::runtime_error("pipe failed");
    pid_ = ::fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGTERM);
      ::dup2(fds[1], 1);
      ::close(fds[0]);
      ::close(fds[1]);
      ::setenv("PYTHONUNBUFFERED", "1", 1);
      std::vector<char*> args;
      for (auto const& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      ::execvp(args[0], args.data());
      std::_Exit(127);
    }
    ::close(fds[1]);
    out_ = fds[0];
    std::string line;
    char ch = 0;
    while (::read(out_, &ch, 1) == 1 && ch != '\n') line += ch;
    if (line.empty()) {
      std::string cmd;
      for (auto const& a : argv) cmd += (cmd.empty() ? "" : " ") + a;
      throw std::runtime_error("a helper the test needs did not start: " + cmd);
    }
    return line;
  }

  void stop() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      int st = 0;
      ::waitpid(pid_, &st, 0);
      pid_ = -1;
    }
    if (out_ >= 0) {
      ::close(out_);
      out_ = -1;
    }
  }

 private:
  pid_t pid_ = -1;
  int out_ = -1;
};

}  // namespace floe::test
