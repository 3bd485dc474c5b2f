#pragma once
// The progress bar: stderr only, only on a terminal, only for transfers of
// 8 MiB or more.

#include <chrono>
#include <cstdint>
#include <string>

namespace floe::cli {

/// A progress bar on stderr, drawn only when stderr is a terminal and the
/// transfer is at least 8 MiB (and not turned off). A stream of unknown size
/// (stdin) shows its bar once 8 MiB have gone through: bytes and rate, no
/// total and no ETA.
class progress {
 public:
  static constexpr std::uint64_t threshold = 8ull << 20;
  struct unknown_size_t {};
  static constexpr unknown_size_t unknown_size{};

  progress(std::string label, std::uint64_t total, bool allowed);
  progress(std::string label, unknown_size_t, bool allowed);
  ~progress();
  progress(progress const&) = delete;
  progress& operator=(progress const&) = delete;

  bool active() const noexcept { return active_; }
  /// Bytes moved so far (known byte counts).
  void add(std::uint64_t n);
  /// Sets the bytes moved so far (an upload's count, which can go back when
  /// a part is retried).
  void set(std::uint64_t done);
  /// Redraws with no new bytes: the time (and the spinner before the first
  /// count) goes on while none are reported.
  void tick();
  /// Clears the line and prints the summary.
  void finish(bool ok);
  /// Clears the line, no summary (another bar takes over).
  void clear();

 private:
  void draw(bool force);

  std::string label_;
  std::uint64_t total_ = 0;
  std::uint64_t done_ = 0;
  bool active_ = false;
  bool unknown_ = false;
  bool allowed_ = false;  // unknown size: may become active
  bool finished_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_;
  unsigned spin_ = 0;
};

/// Whether stderr is a terminal.
bool stderr_is_tty() noexcept;

/// "24.0 MiB".
std::string human_size(std::uint64_t bytes);

}  // namespace floe::cli
