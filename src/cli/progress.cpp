// The progress bar: stderr only, only on a terminal, only for transfers of
// 8 MiB or more, redrawn at most ten times a second.

#include "progress.hpp"

#include "output.hpp"

#include <array>
#include <cstdio>
#include <unistd.h>

namespace floe::cli {

bool stderr_is_tty() noexcept { return ::isatty(2) == 1; }

std::string human_size(std::uint64_t bytes) {
  constexpr std::array<char const*, 5> units{"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  std::size_t u = 0;
  while (v >= 1024.0 && u + 1 < units.size()) {
    v /= 1024.0;
    ++u;
  }
  char buf[32];
  if (u == 0) std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
  else std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
  return buf;
}

// The label names a key, which the server chose: made printable().
progress::progress(std::string label, std::uint64_t total, bool allowed)
    : label_(printable(label)), total_(total), active_(allowed && total >= threshold && stderr_is_tty()) {
  start_ = last_ = std::chrono::steady_clock::now();
  if (active_) draw(true);
}

progress::progress(std::string label, unknown_size_t, bool allowed)
    : label_(printable(label)), unknown_(true), allowed_(allowed && stderr_is_tty()) {
  start_ = last_ = std::chrono::steady_clock::now();
}

progress::~progress() {
  if (active_ && !finished_) finish(false);
}

void progress::add(std::uint64_t n) {
  done_ += n;
  if (active_) {
    draw(false);
  } else if (allowed_ && !finished_ && done_ >= threshold) {
    active_ = true;
    draw(true);
  }
}

void progress::set(std::uint64_t done) {
  done_ = done;
  if (active_) draw(false);
}

void progress::tick() {
  if (active_) draw(false);
}

void progress::draw(bool force) {
  auto now = std::chrono::steady_clock::now();
  if (!force && now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  double secs = std::chrono::duration<double>(now - start_).count();
  std::string line = "\r" + label_ + " ";
  if (unknown_) {
    // No total to measure against: what went through and how fast.
    double const rate = static_cast<double>(done_) / (secs > 0.001 ? secs : 0.001);
    char buf[64];
    std::snprintf(buf, sizeof buf, "  %.1f s", secs);
    line += " " + human_size(done_) + " read  " + human_size(static_cast<std::uint64_t>(rate)) + "/s" + buf;
  } else if (done_ > 0 || total_ == 0) {
    constexpr int width = 30;
    auto frac = total_ == 0 ? 1.0 : static_cast<double>(done_) / static_cast<double>(total_);
    if (frac > 1.0) frac = 1.0;
    int fill = static_cast<int>(frac * width);
    line += '[';
    line.append(static_cast<std::size_t>(fill), '#');
    line.append(static_cast<std::size_t>(width - fill), ' ');
    char buf[96];
    std::snprintf(buf, sizeof buf, "] %3d%% %s / %s", static_cast<int>(frac * 100), human_size(done_).c_str(),
                  human_size(total_).c_str());
    line += buf;
    if (secs > 0.2) {
      double const rate = static_cast<double>(done_) / secs;
      line += "  " + human_size(static_cast<std::uint64_t>(rate)) + "/s";
      if (rate > 0 && done_ < total_) {
        auto const eta = static_cast<unsigned long long>(static_cast<double>(total_ - done_) / rate + 0.5);
        char e[48];
        if (eta >= 3600) std::snprintf(e, sizeof e, "  ETA %lluh%02llum", eta / 3600, (eta / 60) % 60);
        else std::snprintf(e, sizeof e, "  ETA %llu:%02llu", eta / 60, eta % 60);
        line += e;
      }
    }
  } else {
    static constexpr char spinner[] = "|/-\\";
    line += spinner[spin_++ % 4];
    char buf[64];
    std::snprintf(buf, sizeof buf, " %s  %.1f s", human_size(total_).c_str(), secs);
    line += buf;
  }
  line += "\x1b[K";
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}

void progress::clear() {
  if (!active_ || finished_) {
    finished_ = true;
    return;
  }
  finished_ = true;
  std::fputs("\r\x1b[K", stderr);
  std::fflush(stderr);
}

void progress::finish(bool ok) {
  if (!active_ || finished_) return;
  finished_ = true;
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::string line = "\r\x1b[K";
  if (ok) {
    char buf[64];
    std::snprintf(buf, sizeof buf, " %.1f s", secs);
    auto const moved = unknown_ ? done_ : total_;
    line += label_ + ": " + human_size(moved) + " in" + buf;
    if (secs > 0.05) line += " (" + human_size(static_cast<std::uint64_t>(static_cast<double>(moved) / secs)) + "/s)";
    line += '\n';
  }
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}

}  // namespace floe::cli
