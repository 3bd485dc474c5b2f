#pragma once
// Where one reply's body goes, piece by piece as it is parsed: a 2xx body
// to the request's sink (response::body, a file or a stream callback), any
// other status's body to response::body as an error body. Each target has
// its bound (client_config::body_limit for memory, error_body_limit for
// error bodies; files and streams none). No socket: the reply reader feeds
// it.

#include <floe/config.hpp>
#include <floe/http/body.hpp>
#include <floe/http/file_io.hpp>
#include <floe/http/message.hpp>

#include <boost/system/error_code.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace floe::http::detail {

/// The most of a declared Content-Length reserved before the bytes come;
/// a longer body grows as it arrives.
inline constexpr std::uint64_t max_body_reserve = 1024 * 1024;

class reply_body {
 public:
  using error_code = boost::system::error_code;

  reply_body(response& res, body_sink const& sink, std::uint64_t body_limit, std::uint64_t error_body_limit) noexcept
      : res_(res), sink_(sink), body_limit_(body_limit), error_body_limit_(error_body_limit) {}
  reply_body(reply_body const&) = delete;
  reply_body& operator=(reply_body const&) = delete;

  // A new reply begins (its status line was read): nothing of a body yet.
  void reset() noexcept {
    res_.body.clear();
    res_.body_bytes = 0;
  }

  // Before the first byte of a body, once res.status is known: chooses the
  // target, refuses a declared length over its limit (errc::reply_too_large)
  // and opens a file sink (created or truncated).
  FLOE_DECL void begin(bool has_length, std::uint64_t length, error_code& ec);

  // One piece of the body; returns how much was taken (all of it unless `ec`).
  FLOE_DECL std::size_t take(std::string_view piece, error_code& ec);

  // Whether bytes were handed to a stream sink, which cannot take them again.
  bool sink_touched() const noexcept { return sink_touched_; }

  // Why the body was reply_too_large: its limit, by name and value.
  FLOE_DECL std::string too_large_reason() const;

 private:
  enum class target : std::uint8_t { memory, error_memory, file, stream };

  response& res_;
  body_sink const& sink_;
  std::uint64_t body_limit_;
  std::uint64_t error_body_limit_;
  std::uint64_t limit_ = 0;
  unique_fd file_;
  target target_ = target::memory;
  bool sink_touched_ = false;
};

}  // namespace floe::http::detail

#if defined(FLOE_HEADER_ONLY)
#include <floe/http/impl/reply_body.ipp>
#endif
