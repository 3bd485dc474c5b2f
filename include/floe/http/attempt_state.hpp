#pragma once
// What one attempt did, as the retry decision needs it: filled in by the
// connection's writes and reads, read by the client's retry loop.

#include <boost/system/error_code.hpp>

#include <chrono>
#include <string>

namespace floe::http::detail {

struct attempt_state {
  boost::system::error_code ec;
  std::string why;  // extra words for diagnostics
  bool reached_server = false;
  bool body_consumed = false;
  bool timed_out = false;
  bool reply_started = false;
  bool sink_dirty = false;  // bytes went to a sink that cannot be reset
  bool reusable = false;
  std::chrono::steady_clock::time_point sent;        // the request's first byte went out
  std::chrono::steady_clock::time_point first_byte;  // the reply's first byte came (with reply_started)
};

}  // namespace floe::http::detail
