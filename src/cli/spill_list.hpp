#pragma once
// Names held back until a decision is made about all of them: what `sync
// --delete` would remove waits here until both trees have been walked to
// their end. Any number of them: each a record (an 8-byte length, then the
// bytes) in a spill_buffer, so memory stays flat whatever the tree holds.
// Written once, then read once, in order.

#include "spill_buffer.hpp"

#include <floe/result.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace floe::cli {

class spill_list {
 public:
  explicit spill_list(std::size_t memory_limit = 1 << 20) : records_(memory_limit, "a list") {}

  /// Appends `s` (any bytes); an error when the temporary file cannot be
  /// made or written (the disk is full), or once reading has begun.
  result<void> push_back(std::string_view s);

  std::uint64_t size() const noexcept { return count_; }
  bool empty() const noexcept { return count_ == 0; }

  /// The next name, from the first on, into `out`; false once all have been
  /// read. An error when the temporary file cannot be read back.
  result<bool> next(std::string& out);

 private:
  spill_buffer records_;
  std::uint64_t count_ = 0, read_ = 0;
};

}  // namespace floe::cli
