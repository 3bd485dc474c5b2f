#pragma once
// HTTP/1.1 replies read from bytes in memory, with no I/O: a reply head
// alone (parse_reply_head, a pure function) and whole replies, head and body
// (detail::reply_reader, a sans-I/O state machine that a connection's read
// loop feeds). Beast's parser does the RFC 9112 syntax underneath; floe adds
// its bounds and refusals.
//
// Refused as errc::malformed_reply, saying why: a status line that is not
// "HTTP/1.0" or "HTTP/1.1", a space, three digits, a space and a reason; a
// status below 100; a field name that is not a token, or empty; a control
// byte in a field value (NUL, a CR without its LF, a bare LF: no header
// injection gets through); a Content-Length that is not a decimal number, or
// that appears again with another value; Content-Length together with
// Transfer-Encoding, or a second Transfer-Encoding after chunked; a bad
// chunk size or chunk line. A head over `header_limit` bytes is
// errc::reply_too_large; so the number of fields is bounded too (a field
// line takes at least 4 bytes). Accepted as RFC 9112 allows a recipient: a
// field continued on the next line (obs-fold), the fold read as one space;
// the same Content-Length given twice; chunk extensions (ignored) and
// trailer fields (added to the headers).

#include <floe/config.hpp>
#include <floe/error.hpp>
#include <floe/http/fields.hpp>
#include <floe/http/message.hpp>
#include <floe/http/reply_body.hpp>

#include <boost/beast/http/basic_parser.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace floe::http {

/// How a reply's body is delimited, as its head says.
enum class reply_framing : std::uint8_t {
  none,         // no body: a 1xx, 204 or 304, a reply to HEAD, Content-Length: 0
  length,       // Content-Length bytes
  chunked,      // Transfer-Encoding: chunked
  until_close,  // neither: the body ends when the server closes the connection
};

/// A parsed reply head.
struct reply_head {
  unsigned status = 0;
  fields headers;
  reply_framing framing = reply_framing::none;
  std::uint64_t content_length = 0;  // as declared (0 if not): the body's length with reply_framing::length
  bool keep_alive = false;           // the connection may carry another request after the body
  std::size_t size = 0;              // bytes of the head, from the status line to the empty line
};

struct reply_head_params {
  std::uint32_t header_limit = 64 * 1024;  // as client_config::header_limit
  bool head_request = false;               // a reply to HEAD has no body, whatever it declares
};

enum class head_state : std::uint8_t {
  complete,   // `head` holds the reply head
  need_more,  // the bytes end before the head does
  refused,    // see `err`
};

struct head_parse {
  head_state state = head_state::need_more;
  error err;  // with refused: errc::malformed_reply or errc::reply_too_large, and why
};

/// Parses the reply head at the start of `bytes` (the bytes after it, a body
/// or the next reply, are not looked at). A 1xx head is complete by itself:
/// its caller reads the next head from bytes.substr(head.size). Any bytes are
/// safe: it never reads outside `bytes`, never loops without consuming
/// input, and never throws (no memory for a field is a refusal too).
FLOE_DECL head_parse parse_reply_head(std::string_view bytes, reply_head& head,
                                      reply_head_params const& params = {}) noexcept;

namespace detail {

/// Bounds on one reply (client_config's).
struct reply_limits {
  std::uint32_t header_limit = 64 * 1024;
  std::uint64_t body_limit = UINT64_MAX;
  std::uint64_t error_body_limit = UINT64_MAX;
};

// Beast's parser writing the status and fields where they are kept (no
// per-field allocation once warm) and the body to a reply_body (null: the
// head alone is wanted).
class reply_parser final : public boost::beast::http::basic_parser<false> {
 public:
  using error_code = boost::system::error_code;

  reply_parser(unsigned& status, fields& headers, reply_body* body) noexcept
      : status_(status), headers_(headers), body_(body) {}
  ~reply_parser() override = default;
  reply_parser(reply_parser const&) = delete;
  reply_parser& operator=(reply_parser const&) = delete;

  // Where the last failure came from.
  enum class origin : std::uint8_t { syntax, status, field, body };
  origin failed_at() const noexcept { return origin_; }

 private:
  FLOE_DECL void on_request_impl(boost::beast::http::verb, boost::beast::string_view, boost::beast::string_view, int,
                                 error_code& ec) override;
  FLOE_DECL void on_response_impl(int code, boost::beast::string_view, int, error_code& ec) override;
  FLOE_DECL void on_field_impl(boost::beast::http::field, boost::beast::string_view name, boost::beast::string_view value,
                               error_code& ec) override;
  void on_header_impl(error_code&) override {}
  FLOE_DECL void on_body_init_impl(boost::optional<std::uint64_t> const& length, error_code& ec) override;
  FLOE_DECL std::size_t on_body_impl(boost::beast::string_view body, error_code& ec) override;
  void on_chunk_header_impl(std::uint64_t, boost::beast::string_view, error_code&) override {}
  FLOE_DECL std::size_t on_chunk_body_impl(std::uint64_t, boost::beast::string_view body, error_code& ec) override;
  void on_finish_impl(error_code&) override {}

  unsigned& status_;
  fields& headers_;
  reply_body* body_;
  origin origin_ = origin::syntax;
};

// One reply, head and body, from bytes fed in as they arrive: the status
// and fields to response::status and headers, the body through a
// reply_body. Interim (1xx) replies are skipped, except a 100 Continue when
// the caller waits for one.
class reply_reader {
 public:
  using error_code = boost::system::error_code;
  enum class state : std::uint8_t {
    reading,  // feed more bytes (or the end of the stream)
    interim,  // a 100 Continue came, and `interim` was asked for
    done,     // a final reply is in the response
    failed,   // see error() and why()
  };

  FLOE_DECL reply_reader(response& res, request const& req, reply_limits const& limits, bool interim);
  reply_reader(reply_reader const&) = delete;
  reply_reader& operator=(reply_reader const&) = delete;

  // Parses what it can of `bytes`; returns how many it used. The rest is an
  // incomplete head (feed it again with more after it) or bytes after the
  // reply (the next reply's, on a keep-alive connection). A head is parsed
  // once it is whole (up to its empty line), reaches header_limit or shows
  // a line end no head may have, so the outcome does not depend on how the
  // bytes were cut: until then nothing of it is used.
  FLOE_DECL std::size_t feed(std::string_view bytes);
  // The peer closed the stream with every byte fed: whether that ends the
  // reply (a body delimited by the close). If not, the reply was cut short.
  FLOE_DECL bool feed_eof();

  state status() const noexcept { return state_; }
  // With state::failed: errc::malformed_reply, errc::reply_too_large, or
  // the body sink's own error.
  FLOE_DECL error_code error() const;
  // With state::failed: what was wrong, in words ("" for a sink's error).
  FLOE_DECL std::string why() const;
  // With state::done: whether the connection may carry another request.
  bool keep_alive() const noexcept { return keep_alive_; }
  // Whether bytes were handed to a stream sink.
  bool sink_touched() const noexcept { return body_.sink_touched(); }
  // Whether the final (non-1xx) reply's head is complete: what follows is
  // its body, if any.
  bool head_done() const noexcept {
    return state_ == state::done || (state_ == state::reading && parser_->is_header_done() && res_.status >= 200);
  }

 private:
  void start();
  void fail(error_code ec);
  std::size_t head_extent(std::string_view head);

  response& res_;
  reply_body body_;
  std::optional<reply_parser> parser_;
  error_code cause_;  // as the parser or the sink said it (error() maps it)
  std::uint32_t header_limit_;
  std::size_t head_scanned_ = 0;  // bytes of the pending head already searched for its end
  bool chunk_start_ = false;      // a chunked body of which nothing was parsed yet
  state state_ = state::reading;
  reply_parser::origin origin_ = reply_parser::origin::syntax;
  bool head_request_;
  bool interim_;
  bool keep_alive_ = false;
};

}  // namespace detail
}  // namespace floe::http

#if defined(FLOE_HEADER_ONLY)
#include <floe/http/impl/reply_reader.ipp>
#endif
