// Length-prefixed records in a spill_buffer.

#include "spill_list.hpp"

#include <cstring>

namespace floe::cli {

result<void> spill_list::push_back(std::string_view s) {
  std::uint64_t const n = s.size();
  char b[sizeof n];
  std::memcpy(b, &n, sizeof n);
  if (auto r = records_.append(std::string_view(b, sizeof b)); !r) return r;
  if (auto r = records_.append(s); !r) return r;
  ++count_;
  return {};
}

result<bool> spill_list::next(std::string& out) {
  if (read_ == count_) return false;
  std::uint64_t n = 0;
  char b[sizeof n];
  auto got = records_.read(b, sizeof b);
  if (!got) return got.error();
  if (*got != sizeof b) return error(errc::invalid_argument, "spill_list: a record is missing");
  std::memcpy(&n, b, sizeof n);
  out.resize(n);
  got = records_.read(out.data(), n);
  if (!got) return got.error();
  if (*got != n) return error(errc::invalid_argument, "spill_list: a record is cut short");
  ++read_;
  return true;
}

}  // namespace floe::cli
