#pragma once
// Shared by the commit-machine tests: replies as the S3 layer gives them,
// and a ledger state that has its genesis.
#include <floe/ledger/commit_machine.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace ledger_test {

using namespace floe::ledger;
namespace s3 = floe::s3;
using step = commit_machine::step;
using clk = std::chrono::steady_clock;
inline clk::time_point const t0 = clk::time_point{} + std::chrono::hours(1);

inline floe::result<s3::write_outcome> written() { return s3::write_outcome{s3::written{"etag", ""}}; }
inline floe::result<s3::write_outcome> failed_412() {
  return s3::write_outcome{s3::precondition_failed{412, "PreconditionFailed", ""}};
}
inline floe::result<s3::write_outcome> conflict_409() {
  return s3::write_outcome{s3::conflict{409, "ConcurrentModification", ""}};
}
inline floe::result<s3::write_outcome> unknown_500() {
  return s3::write_outcome{s3::unknown_outcome{500, "UnknownError", ""}};
}
inline floe::result<s3::write_outcome> lost() { return s3::write_outcome{s3::unknown_outcome{0, "", "connection reset"}}; }

using read_result = floe::result<std::optional<std::string>>;
inline read_result absent() { return std::optional<std::string>(); }
inline read_result found(std::string body) { return std::optional<std::string>(std::move(body)); }
inline read_result read_failed() { return floe::error(floe::errc::transient, "503 SlowDown"); }

inline entry E(std::string key) { return entry{"lake", std::move(key), "etag-" + key, "", 1}; }

inline std::string other_commit(std::uint64_t n, std::vector<entry> entries, std::string id = "other.x") {
  commit c;
  c.number = n;
  c.write_id = std::move(id);
  c.writer = "another";
  c.time = "2025-01-01T00:00:00Z";
  c.entries = std::move(entries);
  return encode_commit(c);
}

// A state that knows the genesis (and `extra` commits of one entry each).
inline ledger_state loaded_state(int extra = 0) {
  ledger_state st;
  commit g;
  g.write_id = "genesis.0";
  st.apply(g);
  for (int i = 1; i <= extra; ++i) {
    commit c;
    c.number = static_cast<std::uint64_t>(i);
    c.write_id = "old." + std::to_string(i);
    c.entries = {E("old" + std::to_string(i))};
    st.apply(c);
  }
  return st;
}

}  // namespace ledger_test
