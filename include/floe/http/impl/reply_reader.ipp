#pragma once
#include <floe/http/reply_reader.hpp>

#include <boost/asio/buffer.hpp>
#include <boost/beast/http/error.hpp>

#include <algorithm>
#include <new>

namespace floe::http {

namespace detail {

namespace beast_http = boost::beast::http;
using boost::system::error_code;

FLOE_DECL void reply_parser::on_request_impl(beast_http::verb, boost::beast::string_view, boost::beast::string_view,
                                             int, error_code& ec) {
  ec = beast_http::error::bad_version;
}

FLOE_DECL void reply_parser::on_response_impl(int code, boost::beast::string_view, int, error_code& ec) {
  // 0 means "no reply" to everything above, and 0xx has no class to go by.
  if (code < 100) {
    origin_ = origin::status;
    ec = make_error_code(errc::malformed_reply);
    return;
  }
  status_ = static_cast<unsigned>(code);
  headers_.clear();
  if (body_) body_->reset();
}

FLOE_DECL void reply_parser::on_field_impl(beast_http::field, boost::beast::string_view name,
                                           boost::beast::string_view value, error_code& ec) {
  headers_.add(name, value);
  if (!headers_.valid()) {
    origin_ = origin::field;
    ec = make_error_code(errc::malformed_reply);
  }
}

FLOE_DECL void reply_parser::on_body_init_impl(boost::optional<std::uint64_t> const& length, error_code& ec) {
  if (!body_) return;
  body_->begin(length.has_value(), length.value_or(0), ec);
  if (ec) origin_ = origin::body;
}

FLOE_DECL std::size_t reply_parser::on_body_impl(boost::beast::string_view body, error_code& ec) {
  auto const n = body_ ? body_->take(body, ec) : body.size();
  if (ec) origin_ = origin::body;
  return n;
}

FLOE_DECL std::size_t reply_parser::on_chunk_body_impl(std::uint64_t, boost::beast::string_view body, error_code& ec) {
  return on_body_impl(body, ec);
}

// The code a parse failure is reported with, and its words.
inline error_code failure_code(reply_parser::origin at, error_code cause) {
  if (at == reply_parser::origin::body) return cause;  // reply_too_large, or the sink's own error
  if (cause == beast_http::error::header_limit) return make_error_code(errc::reply_too_large);
  return make_error_code(errc::malformed_reply);
}

inline std::string failure_reason(reply_parser::origin at, error_code cause, std::uint32_t header_limit) {
  switch (at) {
    case reply_parser::origin::body: return {};
    case reply_parser::origin::status: return "malformed reply: a status code below 100";
    case reply_parser::origin::field: return "malformed reply: a header field floe cannot keep";
    case reply_parser::origin::syntax: break;
  }
  if (cause == beast_http::error::header_limit)
    return "the reply head exceeds client_config::header_limit (" + std::to_string(header_limit) + " bytes)";
  return "malformed reply: " + cause.message();
}

FLOE_DECL reply_reader::reply_reader(response& res, request const& req, reply_limits const& limits, bool interim)
    : res_(res),
      body_(res, req.sink, limits.body_limit, limits.error_body_limit),
      header_limit_(limits.header_limit),
      head_request_(req.method == "HEAD"),
      interim_(interim) {
  start();
}

inline void reply_reader::start() {
  head_scanned_ = 0;
  chunk_start_ = false;
  parser_.emplace(res_.status, res_.headers, &body_);
  parser_->header_limit(header_limit_);
  parser_->body_limit(boost::none);
  parser_->eager(true);
  if (head_request_) parser_->skip(true);
}

inline void reply_reader::fail(error_code cause) {
  origin_ = parser_->failed_at();
  cause_ = cause;
  state_ = state::failed;
}

// How much of `head` (the bytes from a head's first) to give the parser, 0
// while it cannot be judged yet: up to the end of the whole head (its empty
// line), or of a line end no head may have (a bare LF, a CR without its
// LF), or header_limit bytes. The parser is given exactly that at once.
// Beast judges what it is given at once, but once it has had part of a head
// it waits for the empty line before it looks again: a head's faults would
// be found or not, and named differently, depending on how its bytes
// happened to arrive.
inline std::size_t reply_reader::head_extent(std::string_view head) {
  std::size_t const end = std::min<std::size_t>(head.size(), header_limit_);
  // From before where the last look ended: a CR there may now have its next byte.
  for (std::size_t i = head_scanned_ > 3 ? head_scanned_ - 3 : 0; i < end; ++i) {
    char const c = head[i];
    if (c == '\n') {
      if (i == 0 || head[i - 1] != '\r') return i + 1;                      // a bare LF
      if (i >= 3 && head[i - 2] == '\n' && head[i - 3] == '\r') return i + 1;  // the empty line
    } else if (c == '\r' && i + 1 < head.size() && head[i + 1] != '\n') {
      return std::min<std::size_t>(i + 2, header_limit_);  // a CR without its LF
    }
  }
  if (head.size() >= header_limit_) return header_limit_;
  head_scanned_ = head.size();
  return 0;
}

FLOE_DECL std::size_t reply_reader::feed(std::string_view bytes) {
  std::size_t used = 0;
  while (state_ == state::reading && used < bytes.size()) {
    std::size_t give = bytes.size() - used;
    // Beast asserts (boost 1.81, basic_parser.ipp parse_chunk_header) that a
    // last chunk it saw without its end comes back with 5 bytes at least,
    // which a body starting with it ("0\r\n", then "\r") does not; no
    // chunked body is shorter than 5 bytes ("0\r\n\r\n"), so waiting for them
    // costs nothing.
    if (chunk_start_ && give < 5) break;
    bool const head = !parser_->got_some();
    if (head) {
      give = head_extent(bytes.substr(used));
      if (give == 0) break;
    }
    error_code ec;
    auto const n = parser_->put(boost::asio::const_buffer(bytes.data() + used, give), ec);
    used += n;
    if (head) chunk_start_ = parser_->is_header_done() && parser_->chunked() && !parser_->is_done();
    else if (n > 0) chunk_start_ = false;
    if (head && (!ec || ec == beast_http::error::need_more) && !parser_->is_header_done()) {
      // All a head may be was given and it is not whole: too long, or a bad
      // line end Beast had not reached a verdict on.
      fail(give >= header_limit_ ? beast_http::error::header_limit : beast_http::error::bad_line_ending);
      break;
    }
    if (ec == beast_http::error::need_more) {
      if (n == 0) break;
      continue;
    }
    if (ec) {
      fail(ec);
      break;
    }
    if (!parser_->is_done()) {
      if (n == 0) break;
      continue;
    }
    if (res_.status < 200) {
      if (interim_ && res_.status == 100) {
        state_ = state::interim;
        break;
      }
      start();  // an interim reply nobody waits for: the final one follows
      continue;
    }
    keep_alive_ = parser_->keep_alive();
    res_.keep_alive = keep_alive_;
    state_ = state::done;
  }
  return used;
}

FLOE_DECL bool reply_reader::feed_eof() {
  if (state_ != state::reading || !parser_->got_some() || parser_->is_done()) return false;
  error_code ec;
  parser_->put_eof(ec);
  if (ec || !parser_->is_done()) return false;
  keep_alive_ = parser_->keep_alive();
  res_.keep_alive = keep_alive_;
  state_ = state::done;
  return true;
}

FLOE_DECL boost::system::error_code reply_reader::error() const {
  return state_ == state::failed ? failure_code(origin_, cause_) : error_code();
}

FLOE_DECL std::string reply_reader::why() const {
  if (state_ != state::failed) return {};
  if (origin_ == reply_parser::origin::body)
    return cause_ == errc::reply_too_large ? body_.too_large_reason() : std::string();
  return failure_reason(origin_, cause_, header_limit_);
}

}  // namespace detail

FLOE_DECL head_parse parse_reply_head(std::string_view bytes, reply_head& head,
                                      reply_head_params const& params) noexcept {
  head_parse out;
  try {
    head.status = 0;
    head.headers.clear();
    head.framing = reply_framing::none;
    head.content_length = 0;
    head.keep_alive = false;
    head.size = 0;
    if (bytes.empty()) return out;
    detail::reply_parser p(head.status, head.headers, nullptr);
    p.header_limit(params.header_limit);
    p.body_limit(boost::none);
    p.eager(false);  // stop after the head
    if (params.head_request) p.skip(true);
    boost::system::error_code ec;
    // No more than header_limit: Beast would count its limit afresh for the
    // fields once it had taken the status line alone.
    auto const give = std::min<std::size_t>(bytes.size(), params.header_limit);
    auto const n = p.put(boost::asio::const_buffer(bytes.data(), give), ec);
    if (ec == detail::beast_http::error::need_more && give < params.header_limit) return out;
    if (ec == detail::beast_http::error::need_more) ec = detail::beast_http::error::header_limit;
    if (ec) {
      out.state = head_state::refused;
      out.err.code = detail::failure_code(p.failed_at(), ec);
      out.err.diag.message = detail::failure_reason(p.failed_at(), ec, params.header_limit);
      return out;
    }
    head.size = n;
    head.keep_alive = p.keep_alive();
    if (auto const length = p.content_length()) head.content_length = *length;
    head.framing = p.is_done()          ? reply_framing::none
                   : p.chunked()        ? reply_framing::chunked
                   : p.content_length() ? reply_framing::length
                                        : reply_framing::until_close;
    out.state = head_state::complete;
  } catch (...) {  // no memory for a field (nothing else throws)
    out.state = head_state::refused;
    out.err.code = make_error_code(boost::system::errc::not_enough_memory);
  }
  return out;
}

}  // namespace floe::http
