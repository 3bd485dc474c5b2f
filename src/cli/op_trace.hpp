#pragma once
// -v: one line per operation: what was sent where, and what came back.
// Only the method, host and encoded path; never headers.

#include "context.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace floe::cli {

class op_trace {
 public:
  /// An empty `bucket`: a service-level operation (ListBuckets).
  op_trace(context& x, std::string_view operation, std::string_view method, std::string_view bucket,
           std::optional<std::string_view> key);

  /// Logs how `r` (a result) came out, and the time since construction.
  template <class R>
  void done(R const& r) {
    if (!x_.g.debug) return;
    if (r) return finish(nullptr);
    error e = r.error();
    finish(&e);
  }

 private:
  void finish(error const* e);

  context& x_;
  std::string line_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace floe::cli
