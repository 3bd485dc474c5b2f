// Text kept in memory, then in an anonymous temporary file.

#include "spill_buffer.hpp"

#include "context.hpp"
#include "output.hpp"

#include <cerrno>

namespace floe::cli {

spill_buffer::~spill_buffer() {
  if (file_ != nullptr) std::fclose(file_);
}

result<void> spill_buffer::append(std::string_view s) {
  size_ += s.size();
  memory_.append(s);
  if (memory_.size() < limit_) return {};
  if (file_ == nullptr) {
    file_ = std::tmpfile();  // unlinked at once: nothing to remove on a signal
    if (file_ == nullptr)
      return system_error_of(errno, "cannot make a temporary file to hold a listing");
  }
  if (std::fwrite(memory_.data(), 1, memory_.size(), file_) != memory_.size())
    return system_error_of(errno, "cannot write a temporary file holding a listing");
  memory_.clear();
  return {};
}

bool spill_buffer::write_to_stdout() {
  if (file_ != nullptr) {
    if (std::fflush(file_) != 0 || std::fseek(file_, 0, SEEK_SET) != 0) return false;
    std::string chunk(1 << 16, '\0');
    for (;;) {
      std::size_t const n = std::fread(chunk.data(), 1, chunk.size(), file_);
      if (n > 0 && !write_stdout(std::string_view(chunk.data(), n))) return false;
      if (n < chunk.size()) {
        if (std::ferror(file_)) return false;
        break;
      }
    }
  }
  return write_stdout(memory_);
}

}  // namespace floe::cli
