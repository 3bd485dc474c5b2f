#pragma once
#include <floe/http/connect.hpp>

#include <floe/http/attempt.hpp>
#include <floe/http/fields.hpp>
#include <floe/http/proxy.hpp>
#include <floe/http/tls.hpp>
#include <floe/http/error_words.hpp>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <array>
#include <charconv>
#include <string>
#include <string_view>

namespace floe::http::detail {

FLOE_DECL boost::asio::awaitable<error> connect(connection& c, endpoint const& ep, client_config const& cfg,
                                                std::shared_ptr<boost::asio::ssl::context>& tls) {
  namespace asio = boost::asio;
  namespace ssl = boost::asio::ssl;
  using tcp = asio::ip::tcp;
  using boost::system::error_code;
  auto proxy = select_proxy(cfg.proxy, ep);
  if (!proxy) co_return proxy.error();
  endpoint const& hop = *proxy ? (*proxy)->ep : ep;
  auto where = [&] {
    std::string s = hop.host + ":" + std::to_string(hop.port);
    if (*proxy) s += " (proxy for " + ep.host + ":" + std::to_string(ep.port) + ")";
    return s;
  };
  auto timed = [&](error_code ec, char const* what) {
    if (c.timed_out())
      return error(errc::timeout, std::string(what) + " " + where() + ": timed out after " +
                                      format_duration(cfg.connect_timeout));
    return detail::with_message(ec, std::string(what) + " " + where() + ": " + error_reason(ec));
  };
  c.watch(cfg.connect_timeout);
  std::string_view connect_host = hop.host;
  for (auto const& [name, address] : cfg.resolve_overrides) {
    if (fields::iequals(name, hop.host)) {
      connect_host = address;
      break;
    }
  }
  boost::system::error_code ec;
  auto const addr = asio::ip::make_address(connect_host, ec);
  if (!ec) {
    auto [e, unused] = co_await asio::async_connect(c.sock_, std::array<tcp::endpoint, 1>{tcp::endpoint(addr, hop.port)},
                                                    tuple_awaitable);
    (void)unused;
    if (e) co_return timed(e, "connecting to");
  } else {
    c.resolver_.emplace(c.sock_.get_executor());
    std::array<char, 8> port{};
    auto [pe, pc] = std::to_chars(port.data(), port.data() + port.size(), hop.port);
    (void)pc;
    auto [re, results] = co_await c.resolver_->async_resolve(connect_host, std::string_view(port.data(), pe - port.data()),
                                                             tuple_awaitable);
    if (re) co_return timed(re, "resolving");
    auto [ce, unused] = co_await asio::async_connect(c.sock_, results, tuple_awaitable);
    (void)unused;
    c.resolver_.reset();
    if (ce) co_return timed(ce, "connecting to");
  }
  c.sock_.set_option(tcp::no_delay(true), ec);
  c.sock_.non_blocking(true, ec);  // for send_now (TLS does not use it)
  if (*proxy && ep.tls) {
    // Tunnel: CONNECT host:port, then TLS inside.
    std::string& w = c.wbuf_;
    w.clear();
    std::string const authority = (ep.host.find(':') != std::string::npos ? "[" + ep.host + "]" : ep.host) + ":" +
                                  std::to_string(ep.port);
    w.append("CONNECT ").append(authority).append(" HTTP/1.1\r\nHost: ").append(authority).append("\r\n");
    if (auto auth = proxy_authorization((*proxy)->userinfo); !auth.empty())
      w.append("Proxy-Authorization: ").append(auth).append("\r\n");
    w.append("\r\n");
    auto [we, wn] = co_await c.async_write(asio::buffer(w), tuple_awaitable);
    (void)wn;
    if (we) co_return timed(we, "CONNECT through");
    request probe;
    probe.method = "HEAD";  // a CONNECT reply has no body
    response r;
    attempt_state a;
    co_await read_reply(c, probe, r, cfg, a, false);
    if (a.ec) co_return timed(a.ec, "CONNECT through");
    if (r.status < 200 || r.status >= 300) {
      diagnostics d;
      d.http_status = r.status;
      d.message = "proxy refused CONNECT to " + authority;
      co_return error(make_error_code(errc::service_error), std::move(d));
    }
    if (c.rbuf_.size() != 0) co_return error(errc::malformed_reply, "proxy sent bytes after its CONNECT reply");
  } else if (*proxy) {
    c.absolute_form_ = true;
    c.proxy_auth_ = proxy_authorization((*proxy)->userinfo);
  }
  if (ep.tls) {
    if (!tls) {
      auto ctx = make_tls_context(cfg.tls);
      if (!ctx) co_return ctx.error();
      tls = *ctx;
    }
    c.tls_.emplace(c.sock_, *tls);
    SSL* ssl = c.tls_->native_handle();
    bool const ip = is_ip_literal(ep.host);
    if (!ip && !SSL_ctrl(ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name, const_cast<char*>(ep.host.c_str())))
      co_return error(errc::invalid_argument, "cannot set TLS SNI to " + ep.host);
    if (cfg.tls.verify_peer) {
      X509_VERIFY_PARAM* param = SSL_get0_param(ssl);
      int const ok = ip ? X509_VERIFY_PARAM_set1_ip_asc(param, ep.host.c_str())
                        : X509_VERIFY_PARAM_set1_host(param, ep.host.c_str(), ep.host.size());
      if (!ok) co_return error(errc::invalid_argument, "cannot set TLS host name verification for " + ep.host);
      X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
    }
    auto [he] = co_await c.tls_->async_handshake(ssl::stream_base::client, tuple_awaitable);
    if (he) {
      // A refused certificate says why in X509's words rather than the
      // handshake's ("certificate verify failed").
      if (long const v = SSL_get_verify_result(ssl); v != X509_V_OK && !c.timed_out())
        co_return detail::with_message(he, "TLS handshake with " + where() + ": certificate verification failed: " +
                                               X509_verify_cert_error_string(v));
      co_return timed(he, "TLS handshake with");
    }
  }
  c.stop_watch();
  co_return error{};
}

}  // namespace floe::http::detail
