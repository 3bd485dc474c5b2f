// Text kept in memory, then in an anonymous temporary file.

#include "spill_buffer.hpp"

#include "context.hpp"
#include "output.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace floe::cli {

spill_buffer::~spill_buffer() {
  if (file_ != nullptr) std::fclose(file_);
}

result<void> spill_buffer::append(std::string_view s) {
  if (reading_) return error(errc::invalid_argument, "spill_buffer: appended to while being read");
  size_ += s.size();
  memory_.append(s);
  if (memory_.size() < limit_) return {};
  if (file_ == nullptr) {
    file_ = std::tmpfile();  // unlinked at once: nothing to remove on a signal
    if (file_ == nullptr)
      return system_error_of(errno, std::string("cannot make a temporary file to hold ") + what_);
  }
  if (std::fwrite(memory_.data(), 1, memory_.size(), file_) != memory_.size())
    return system_error_of(errno, std::string("cannot write a temporary file holding ") + what_);
  memory_.clear();
  return {};
}

result<std::size_t> spill_buffer::read(char* to, std::size_t n) {
  if (!reading_) {
    reading_ = true;
    if (file_ != nullptr && (std::fflush(file_) != 0 || std::fseek(file_, 0, SEEK_SET) != 0))
      return system_error_of(errno, std::string("cannot read back a temporary file holding ") + what_);
  }
  std::size_t got = 0;
  if (file_ != nullptr && !file_done_) {
    got = std::fread(to, 1, n, file_);
    if (got < n) {
      if (std::ferror(file_))
        return system_error_of(errno, std::string("cannot read back a temporary file holding ") + what_);
      file_done_ = true;  // the rest is in memory
    }
  }
  std::size_t const from_memory = std::min(n - got, memory_.size() - memory_at_);
  std::memcpy(to + got, memory_.data() + memory_at_, from_memory);
  memory_at_ += from_memory;
  return got + from_memory;
}

bool spill_buffer::write_to_stdout() {
  std::string chunk(1 << 16, '\0');
  for (;;) {
    auto n = read(chunk.data(), chunk.size());
    if (!n) return false;
    if (*n == 0) return true;
    if (!write_stdout(std::string_view(chunk.data(), *n))) return false;
  }
}

}  // namespace floe::cli
