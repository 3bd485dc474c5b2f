#pragma once
// The head of an HTTP/1.1 request, written into a buffer with no I/O: the
// request line, Host, the caller's fields, Content-Length, Expect and the
// proxy's credentials.

#include <floe/config.hpp>
#include <floe/http/message.hpp>
#include <floe/http/url.hpp>

#include <string>
#include <string_view>

namespace floe::http {

/// How a request head is addressed and what it announces.
struct request_head_params {
  /// Plain HTTP through a proxy: the target in absolute form
  /// ("GET http://host/path HTTP/1.1"), with Proxy-Authorization when
  /// `proxy_authorization` is not empty.
  bool absolute_form = false;
  std::string_view proxy_authorization;
  /// Adds "Expect: 100-continue" (a stream body waits for the server's go).
  bool expect_continue = false;
};

/// Why `req` cannot be written as a request head, or nullptr: a method that
/// is empty or holds a byte that is not a token's; a target that is empty or
/// holds a control byte or a space (CR or LF there would end the request
/// line: request smuggling); a header field refused for CR, LF or NUL when
/// it was set (fields::valid).
FLOE_DECL char const* request_head_refusal(request const& req) noexcept;

/// Writes the head of `req` to `ep` into `out`, replacing what it held (its
/// memory is kept: no allocation once warm). Host is added unless
/// req.headers has one (with the port when it is not the scheme's default,
/// IPv6 literals bracketed); Content-Length when there is a body or the
/// method is PUT, POST or PATCH. Returns request_head_refusal's reason,
/// writing nothing, when it refuses `req`; nullptr when written.
FLOE_DECL char const* write_request_head(std::string& out, endpoint const& ep, request const& req,
                                         request_head_params const& params = {});

namespace detail {
// write_request_head for a request that request_head_refusal let through
// already (the client checks before taking a connection): no second scan.
FLOE_DECL void write_accepted_head(std::string& out, endpoint const& ep, request const& req,
                                   request_head_params const& params);
}  // namespace detail

}  // namespace floe::http

#if defined(FLOE_HEADER_ONLY)
#include <floe/http/impl/request_head.ipp>
#endif
