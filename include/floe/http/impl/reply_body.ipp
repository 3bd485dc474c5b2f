#pragma once
#include <floe/http/reply_body.hpp>

#include <floe/error.hpp>

#include <algorithm>

namespace floe::http::detail {

FLOE_DECL void reply_body::begin(bool has_length, std::uint64_t length, error_code& ec) {
  bool const ok = res_.status >= 200 && res_.status < 300;
  target_ = !ok                                        ? target::error_memory
            : sink_.type() == body_sink::kind::memory ? target::memory
            : sink_.type() == body_sink::kind::file   ? target::file
                                                      : target::stream;
  limit_ = target_ == target::error_memory ? error_body_limit_
           : target_ == target::memory     ? body_limit_
                                           : UINT64_MAX;
  if (has_length && length > limit_) {
    ec = make_error_code(errc::reply_too_large);
    return;
  }
  // What the head declares is reserved up to max_body_reserve only: the
  // bytes may never come, and a length within an unbounded limit can be
  // more than any string holds (std::length_error).
  if (has_length && (target_ == target::memory || target_ == target::error_memory))
    res_.body.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(length, max_body_reserve)));
  if (target_ == target::file) {
    file_.fd = ::open(sink_.path().c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (file_.fd < 0) ec = errno_code();
  }
}

FLOE_DECL std::size_t reply_body::take(std::string_view piece, error_code& ec) {
  if (res_.body_bytes + piece.size() > limit_) {
    ec = make_error_code(errc::reply_too_large);
    return 0;
  }
  switch (target_) {
    case target::memory:
    case target::error_memory: res_.body.append(piece); break;
    case target::file: {
      auto const done = write_all(file_.fd, piece, ec);
      if (ec) return done;
      break;
    }
    case target::stream:
      sink_touched_ = true;
      sink_.writer()(piece, ec);
      if (ec) return 0;
      break;
  }
  res_.body_bytes += piece.size();
  return piece.size();
}

FLOE_DECL std::string reply_body::too_large_reason() const {
  return (target_ == target::error_memory ? "the error reply's body (status " + std::to_string(res_.status) +
                                                ") exceeds client_config::error_body_limit ("
                                          : std::string("the reply body exceeds client_config::body_limit (")) +
         std::to_string(limit_) + " bytes)";
}

}  // namespace floe::http::detail
