// Names in memory, then in an anonymous temporary file, read back in order.

#include "spill_list.hpp"

#include "context.hpp"

#include <cerrno>
#include <cstring>

namespace floe::cli {

namespace {

void put_length(std::string& to, std::uint64_t n) {
  char b[8];
  std::memcpy(b, &n, sizeof b);
  to.append(b, sizeof b);
}

}  // namespace

spill_list::~spill_list() {
  if (file_ != nullptr) std::fclose(file_);
}

result<void> spill_list::spill() {
  if (file_ == nullptr) {
    file_ = std::tmpfile();  // unlinked at once: nothing to remove on a signal
    if (file_ == nullptr) return system_error_of(errno, "cannot make a temporary file to hold a list");
  }
  if (std::fwrite(memory_.data(), 1, memory_.size(), file_) != memory_.size())
    return system_error_of(errno, "cannot write a temporary file holding a list");
  memory_.clear();
  return {};
}

result<void> spill_list::push_back(std::string_view s) {
  if (reading_) return error(errc::invalid_argument, "spill_list: appended to while being read");
  put_length(memory_, s.size());
  memory_.append(s);
  ++count_;
  if (memory_.size() >= limit_) return spill();
  return {};
}

result<bool> spill_list::next(std::string& out) {
  if (!reading_) {
    reading_ = true;
    if (file_ != nullptr && (std::fflush(file_) != 0 || std::fseek(file_, 0, SEEK_SET) != 0))
      return system_error_of(errno, "cannot read back a temporary file holding a list");
  }
  if (read_ == count_) return false;
  std::uint64_t n = 0;
  if (file_ != nullptr && !file_done_) {
    char b[8];
    std::size_t const got = std::fread(b, 1, sizeof b, file_);
    if (got == sizeof b) {
      std::memcpy(&n, b, sizeof n);
      out.resize(n);
      if (n > 0 && std::fread(out.data(), 1, n, file_) != n)
        return system_error_of(std::ferror(file_) ? errno : EIO, "reading back a temporary file holding a list");
      ++read_;
      return true;
    }
    if (got != 0 || std::ferror(file_))
      return system_error_of(std::ferror(file_) ? errno : EIO, "reading back a temporary file holding a list");
    file_done_ = true;  // the rest is in memory
  }
  if (memory_.size() - memory_at_ < 8) return error(errc::invalid_argument, "spill_list: a record is missing");
  std::memcpy(&n, memory_.data() + memory_at_, sizeof n);
  memory_at_ += 8;
  out.assign(memory_, memory_at_, n);
  memory_at_ += n;
  ++read_;
  return true;
}

}  // namespace floe::cli
