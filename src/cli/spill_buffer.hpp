#pragma once
// Text that must come out after something longer than memory should hold:
// `ls --json` writes its objects as pages arrive, but the common prefixes
// (a "directory" each, any number of them) belong after the objects. They
// are kept in memory up to a bound and past it in an anonymous temporary
// file, so a listing's memory stays flat whatever it holds.

#include <floe/result.hpp>

#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>

namespace floe::cli {

class spill_buffer {
 public:
  explicit spill_buffer(std::size_t memory_limit = 1 << 20) : limit_(memory_limit) {}
  ~spill_buffer();
  spill_buffer(spill_buffer const&) = delete;
  spill_buffer& operator=(spill_buffer const&) = delete;

  /// Appends `s`; an error when the temporary file cannot be made or
  /// written (the disk is full).
  result<void> append(std::string_view s);

  /// Everything appended, in order, to stdout; false on a write or read
  /// error.
  bool write_to_stdout();

  bool empty() const noexcept { return size_ == 0; }

 private:
  std::size_t limit_;
  std::size_t size_ = 0;
  std::string memory_;
  std::FILE* file_ = nullptr;  // from the first append past the limit on
};

}  // namespace floe::cli
