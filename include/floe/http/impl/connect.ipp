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
#include <chrono>
#include <charconv>
#include <string>
#include <string_view>

namespace floe::http::detail {

FLOE_DECL error override_addresses(client_config const& cfg, std::string_view host,
                                   std::vector<boost::asio::ip::address>& out, bool& found) {
  found = false;
  for (auto const& [name, list] : cfg.resolve_overrides) {
    if (!fields::iequals(name, host)) continue;
    found = true;
    std::string_view rest = list;
    for (;;) {
      auto const comma = rest.find(',');
      std::string_view item = rest.substr(0, comma);
      while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
      while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
      boost::system::error_code ec;
      auto const a = boost::asio::ip::make_address(std::string(item), ec);
      if (item.empty() || ec)
        return error(errc::invalid_argument, "resolve_overrides entry for \"" + name + "\" is \"" + list + "\": \"" +
                                                 std::string(item) + "\" is not an IP address");
      out.push_back(a);
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  return {};
}

// "127.0.0.3:443", "[::1]:443".
inline std::string connect_address_text(boost::asio::ip::address const& a, std::uint16_t port) {
  return (a.is_v6() ? "[" + a.to_string() + "]" : a.to_string()) + ":" + std::to_string(port);
}

// What of connect_timeout is left at `now` (at least 1 ms; 0: no limit).
inline std::chrono::milliseconds connect_budget_left(std::chrono::steady_clock::time_point start,
                                             std::chrono::milliseconds limit, std::chrono::steady_clock::time_point now) {
  if (limit.count() <= 0) return limit;
  auto const left = std::chrono::duration_cast<std::chrono::milliseconds>(start + limit - now);
  return left.count() > 0 ? left : std::chrono::milliseconds(1);
}

// Addresses of the book not tried yet.
inline std::size_t connect_untried(address_book const& book, std::string_view host, std::uint16_t port, std::size_t tried,
                           std::chrono::steady_clock::time_point now) {
  auto const n = book.report(host, port, now).size();
  return n > tried ? n - tried : 1;
}

FLOE_DECL boost::asio::awaitable<error> connect(connection& c, endpoint const& ep, client_config const& cfg,
                                                std::shared_ptr<boost::asio::ssl::context>& tls,
                                                std::shared_ptr<address_book> const& book) {
  namespace asio = boost::asio;
  namespace ssl = boost::asio::ssl;
  using tcp = asio::ip::tcp;
  using steady = std::chrono::steady_clock;
  using boost::system::error_code;
  auto proxy = select_proxy(cfg.proxy, ep);
  if (!proxy) co_return proxy.error();
  endpoint const& hop = *proxy ? (*proxy)->ep : ep;
  std::string at;  // " (127.0.0.3)" when the host is a name
  auto where = [&] {
    std::string s = hop.host + ":" + std::to_string(hop.port) + at;
    if (*proxy) s += " (proxy for " + ep.host + ":" + std::to_string(ep.port) + ")";
    return s;
  };
  auto limit = cfg.connect_timeout;
  auto timed = [&](error_code ec, char const* what) {
    if (c.timed_out())
      return error(errc::timeout, std::string(what) + " " + where() + ": timed out after " + format_duration(limit));
    return detail::with_message(ec, std::string(what) + " " + where() + ": " + error_reason(ec));
  };
  auto const start = steady::now();
  c.watch(cfg.connect_timeout);
  if (book->needs_resolve(hop.host, hop.port, start)) {
    std::vector<asio::ip::address> addrs;
    bool overridden = false;
    if (auto bad = override_addresses(cfg, hop.host, addrs, overridden); bad.code) co_return bad;
    error_code ec;
    if (!overridden) {
      if (auto const literal = asio::ip::make_address(hop.host, ec); !ec) addrs.push_back(literal);
    }
    if (addrs.empty()) {
      c.resolver_.emplace(c.sock_.get_executor());
      std::array<char, 8> port{};
      auto [pe, pc] = std::to_chars(port.data(), port.data() + port.size(), hop.port);
      (void)pc;
      auto [re, results] = co_await c.resolver_->async_resolve(hop.host, std::string_view(port.data(), pe - port.data()),
                                                               tuple_awaitable);
      c.resolver_.reset();
      // A failed lookup keeps the addresses known (stale beats none).
      if (re && (c.timed_out() || book->report(hop.host, hop.port, steady::now()).empty() ||
                 re == asio::error::operation_aborted))
        co_return timed(re, "resolving");
      for (auto const& r : results) addrs.push_back(r.endpoint().address());
    }
    book->resolved(hop.host, hop.port, addrs, steady::now());
  }
  bool const named = !is_ip_literal(hop.host);
  std::vector<asio::ip::address> tried;
  error failure(errc::invalid_argument, "no address to connect to for " + where());
  for (;;) {
    auto const now = steady::now();
    auto const a = book->pick(hop.host, hop.port, now, tried);
    if (!a) break;
    auto const left = connect_budget_left(start, cfg.connect_timeout, now);
    auto const shares = connect_untried(*book, hop.host, hop.port, tried.size(), now);
    auto share = left.count() > 0 ? left / static_cast<long>(shares) : left;
    if (left.count() > 0 && share.count() <= 0) share = std::chrono::milliseconds(1);
    // The words of a timeout: a lone address had the whole connect_timeout.
    limit = shares == 1 && tried.empty() ? cfg.connect_timeout : share;
    tried.push_back(*a);
    at = named ? " (" + a->to_string() + ")" : std::string();
    c.watch(share);
    auto [e, unused] =
        co_await asio::async_connect(c.sock_, std::array<tcp::endpoint, 1>{tcp::endpoint(*a, hop.port)}, tuple_awaitable);
    (void)unused;
    if (!e) {
      c.lease_ = address_lease{book, hop.host, hop.port, *a};
      c.peer_ = connect_address_text(*a, hop.port);
      break;
    }
    bool const stalled = c.timed_out();
    failure = timed(e, "connecting to");
    book->release(hop.host, hop.port, *a);
    if (!stalled && e == asio::error::operation_aborted) co_return failure;  // cancelled
    book->failed(hop.host, hop.port, *a, stalled ? address_failure::stalled : address_failure::refused, steady::now());
    if (cfg.connect_timeout.count() > 0 && steady::now() - start >= cfg.connect_timeout) co_return failure;
  }
  if (!c.lease_) co_return failure;
  limit = cfg.connect_timeout;
  c.watch(connect_budget_left(start, cfg.connect_timeout, steady::now()));
  // A stall or a reset past TCP (the proxy's CONNECT, the TLS handshake)
  // benches the address too; a refused certificate does not.
  auto bench = [&](error_code const& e) {
    if (c.timed_out())
      c.lease_.failed(address_failure::stalled);
    else if (is_stale_connection_error(e))
      c.lease_.failed(address_failure::reset);
  };
  error_code ec;
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
    if (we) {
      bench(we);
      co_return timed(we, "CONNECT through");
    }
    request probe;
    probe.method = "HEAD";  // a CONNECT reply has no body
    response r;
    attempt_state a;
    co_await read_reply(c, probe, r, cfg, a, false);
    if (a.ec) {
      bench(a.ec);
      co_return timed(a.ec, "CONNECT through");
    }
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
      bench(he);
      co_return timed(he, "TLS handshake with");
    }
  }
  c.stop_watch();
  co_return error{};
}

}  // namespace floe::http::detail
