// watch --metrics: accept, read one bounded request, answer, close.

#include "watch_http.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

#include <charconv>

namespace floe::cli {

namespace asio = boost::asio;
namespace beast = boost::beast;
using tcp = asio::ip::tcp;

struct metrics_server::state {
  explicit state(asio::any_io_executor ex) : acceptor(ex) {}
  tcp::acceptor acceptor;
  handler h;
  bool stopped = false;
  std::set<beast::tcp_stream*> open;
};

namespace {

asio::awaitable<void> serve(std::shared_ptr<metrics_server::state> s, tcp::socket sock) {
  beast::tcp_stream stream(std::move(sock));
  s->open.insert(&stream);
  struct unlist {
    metrics_server::state& s;
    beast::tcp_stream* p;
    ~unlist() { s.open.erase(p); }
  } guard{*s, &stream};
  beast::flat_buffer buf(8192);
  beast::http::request_parser<beast::http::empty_body> parser;
  parser.header_limit(8192);
  parser.body_limit(0);
  stream.expires_after(std::chrono::seconds(5));
  boost::system::error_code ec;
  co_await beast::http::async_read(stream, buf, parser, asio::redirect_error(asio::use_awaitable, ec));
  if (ec || s->stopped) co_return;
  auto const& req = parser.get();
  beast::http::response<beast::http::string_body> res;
  res.version(11);
  res.keep_alive(false);
  http_answer a;
  if (req.method() != beast::http::verb::get && req.method() != beast::http::verb::head) {
    a = {405, "text/plain; charset=utf-8", "method not allowed\n"};
    res.set(beast::http::field::allow, "GET, HEAD");
  } else {
    std::string_view target(req.target().data(), req.target().size());
    a = s->h(target.substr(0, target.find('?')));
  }
  res.result(a.status);
  res.set(beast::http::field::content_type, a.content_type);
  res.set(beast::http::field::cache_control, "no-store");
  res.body() = req.method() == beast::http::verb::head ? std::string() : std::move(a.body);
  res.prepare_payload();
  if (req.method() == beast::http::verb::head) res.content_length(a.body.size());
  co_await beast::http::async_write(stream, res, asio::redirect_error(asio::use_awaitable, ec));
  stream.socket().shutdown(tcp::socket::shutdown_both, ec);
}

asio::awaitable<void> accept_loop(std::shared_ptr<metrics_server::state> s) {
  for (;;) {
    boost::system::error_code ec;
    tcp::socket sock = co_await s->acceptor.async_accept(asio::redirect_error(asio::use_awaitable, ec));
    if (s->stopped || ec == asio::error::operation_aborted) co_return;
    if (ec) continue;  // a connection that went away before it was taken
    asio::co_spawn(s->acceptor.get_executor(), serve(s, std::move(sock)), asio::detached);
  }
}

}  // namespace

result<tcp::endpoint> parse_listen_address(std::string_view text) {
  auto bad = [&](std::string why) {
    return error(errc::invalid_argument, "--metrics '" + std::string(text) + "': " + why + " (ADDRESS:PORT, e.g. 127.0.0.1:9100)");
  };
  auto colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return bad("no port");
  std::string_view host = text.substr(0, colon), port_text = text.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  unsigned port = 0;
  auto [p, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (port_text.empty() || ec != std::errc{} || p != port_text.data() + port_text.size() || port > 65535)
    return bad("the port is not a number from 0 to 65535");
  boost::system::error_code aec;
  auto addr = asio::ip::make_address(std::string(host), aec);
  if (aec) return bad("the address is not an IP address");
  return tcp::endpoint(addr, static_cast<unsigned short>(port));
}

result<std::unique_ptr<metrics_server>> metrics_server::start(asio::any_io_executor ex, std::string_view address,
                                                              handler h) {
  auto ep = parse_listen_address(address);
  if (!ep) return ep.error();
  auto s = std::make_shared<state>(ex);
  s->h = std::move(h);
  boost::system::error_code ec;
  s->acceptor.open(ep->protocol(), ec);
  if (!ec) s->acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) s->acceptor.bind(*ep, ec);
  if (!ec) s->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    error e(ec);
    e.diag.message = "--metrics " + std::string(address) + ": " + ec.message();
    return e;
  }
  asio::co_spawn(ex, accept_loop(s), asio::detached);
  return std::unique_ptr<metrics_server>(new metrics_server(std::move(s)));
}

metrics_server::~metrics_server() { stop(); }

tcp::endpoint metrics_server::local_endpoint() const {
  boost::system::error_code ec;
  return s_->acceptor.local_endpoint(ec);
}

void metrics_server::stop() {
  if (s_->stopped) return;
  s_->stopped = true;
  boost::system::error_code ec;
  s_->acceptor.close(ec);
  for (auto* st : s_->open) st->socket().close(ec);
  s_->h = nullptr;
}

}  // namespace floe::cli
