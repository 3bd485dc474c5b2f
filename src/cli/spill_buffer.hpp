#pragma once
// Text that must wait for something longer than memory should hold: `ls
// --json` writes its objects as pages arrive, but the common prefixes (a
// "directory" each, any number of them) belong after the objects; `sync
// --delete` holds what it would remove until both walks have ended (a
// spill_list on top of this). Kept in memory up to a bound and past it in an
// anonymous temporary file, so memory stays flat whatever it holds. Written
// first, then read once, in order.

#include <floe/result.hpp>

#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>

namespace floe::cli {

class spill_buffer {
 public:
  /// `what` names the contents in error messages ("a listing").
  explicit spill_buffer(std::size_t memory_limit = 1 << 20, char const* what = "a listing")
      : limit_(memory_limit), what_(what) {}
  ~spill_buffer();
  spill_buffer(spill_buffer const&) = delete;
  spill_buffer& operator=(spill_buffer const&) = delete;

  /// Appends `s`; an error when the temporary file cannot be made or
  /// written (the disk is full), or once reading has begun.
  result<void> append(std::string_view s);

  /// Reads on from where the last read ended (the start, the first time):
  /// up to `n` bytes into `to`, fewer only at the end; 0 once all is read.
  /// An error when the temporary file cannot be read back.
  result<std::size_t> read(char* to, std::size_t n);

  /// Everything appended, in order, to stdout; false on a write or read
  /// error.
  bool write_to_stdout();

  bool empty() const noexcept { return size_ == 0; }

 private:
  std::size_t limit_;
  char const* what_;
  std::size_t size_ = 0;
  std::string memory_;
  std::size_t memory_at_ = 0;  // reading: how much of memory_ has been read
  std::FILE* file_ = nullptr;  // from the first append past the limit on
  bool reading_ = false;
  bool file_done_ = false;
};

}  // namespace floe::cli
