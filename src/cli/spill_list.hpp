#pragma once
// Names held back until a decision is made about all of them: what `sync
// --delete` would remove waits here until both trees have been walked to
// their end. Any number of them: kept in memory up to a bound and past it
// in an anonymous temporary file, so memory stays flat whatever the tree
// holds. Written once, then read once, in order.

#include <floe/result.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace floe::cli {

class spill_list {
 public:
  explicit spill_list(std::size_t memory_limit = 1 << 20) : limit_(memory_limit) {}
  ~spill_list();
  spill_list(spill_list const&) = delete;
  spill_list& operator=(spill_list const&) = delete;

  /// Appends `s` (any bytes); an error when the temporary file cannot be
  /// made or written (the disk is full).
  result<void> push_back(std::string_view s);

  std::uint64_t size() const noexcept { return count_; }
  bool empty() const noexcept { return count_ == 0; }

  /// The next name, from the first on, into `out`; false once all have been
  /// read. An error when the temporary file cannot be read back. Nothing is
  /// appended once reading has begun.
  result<bool> next(std::string& out);

 private:
  result<void> spill();

  std::size_t limit_;
  std::uint64_t count_ = 0, read_ = 0;
  std::string memory_;         // records: 8-byte length, then the bytes
  std::size_t memory_at_ = 0;  // reading: where the next record of memory_ starts
  std::FILE* file_ = nullptr;  // from the first spill on
  bool reading_ = false;
  bool file_done_ = false;
};

}  // namespace floe::cli
