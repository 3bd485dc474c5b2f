#pragma once
#include <floe/http/request_head.hpp>

#include <charconv>
#include <cstdint>

namespace floe::http {

namespace detail {

inline void append_uint(std::string& s, std::uint64_t v) {
  char buf[24];
  auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v);
  (void)ec;
  s.append(buf, p);
}

// tchar (RFC 9110 5.6.2): ALPHA, DIGIT and "!#$%&'*+-.^_`|~".
inline bool is_tchar(unsigned char c) noexcept {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  for (char t : std::string_view("!#$%&'*+-.^_`|~"))
    if (c == static_cast<unsigned char>(t)) return true;
  return false;
}

}  // namespace detail

FLOE_DECL char const* request_head_refusal(request const& req) noexcept {
  if (!req.headers.valid()) return "a request header contains CR, LF or NUL";
  if (req.method.empty()) return "the request method is empty";
  for (unsigned char c : req.method)
    if (!detail::is_tchar(c)) return "the request method holds a byte a method may not";
  if (req.target.empty()) return "the request target is empty";
  // No early exit: the loop vectorises, and a refused target is the rare case.
  unsigned bad = 0;
  for (unsigned char c : req.target) bad |= static_cast<unsigned>((c <= ' ') | (c == 0x7f));
  if (bad != 0) return "the request target contains a space or a control byte (CR, LF, NUL...)";
  return nullptr;
}

FLOE_DECL void detail::write_accepted_head(std::string& out, endpoint const& ep, request const& req,
                                          request_head_params const& params) {
  auto& w = out;
  w.clear();
  w.append(req.method).append(" ");
  if (params.absolute_form) {
    w.append("http://");
    if (!req.headers.contains("Host")) w.append(ep.host_header());
    else w.append(req.headers.get("Host"));
  }
  w.append(req.target).append(" HTTP/1.1\r\n");
  if (!req.headers.contains("Host")) {
    w.append("Host: ");
    bool const v6 = ep.host.find(':') != std::string::npos;
    if (v6) w.push_back('[');
    w.append(ep.host);
    if (v6) w.push_back(']');
    if (ep.port != ep.default_port()) {
      w.push_back(':');
      detail::append_uint(w, ep.port);
    }
    w.append("\r\n");
  }
  w.append(req.headers.wire());
  bool const has_body = req.body.type() != body_source::kind::none;
  if (has_body || req.method == "PUT" || req.method == "POST" || req.method == "PATCH") {
    w.append("Content-Length: ");
    detail::append_uint(w, req.body.size());
    w.append("\r\n");
  }
  if (params.expect_continue) w.append("Expect: 100-continue\r\n");
  if (params.absolute_form && !params.proxy_authorization.empty())
    w.append("Proxy-Authorization: ").append(params.proxy_authorization).append("\r\n");
  w.append("\r\n");
}

FLOE_DECL char const* write_request_head(std::string& out, endpoint const& ep, request const& req,
                                         request_head_params const& params) {
  if (char const* why = request_head_refusal(req)) return why;
  detail::write_accepted_head(out, ep, req, params);
  return nullptr;
}

}  // namespace floe::http
