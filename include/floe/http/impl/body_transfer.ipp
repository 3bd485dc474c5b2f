#pragma once
#include <floe/http/body_transfer.hpp>

#include <floe/http/file_io.hpp>
#include <floe/http/restartable_body.hpp>

#include <boost/asio/buffer.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <string_view>

namespace floe::http::detail {

FLOE_DECL boost::asio::awaitable<void> write_body(connection& c, request& req, client_config const& cfg,
                                                  attempt_state& a) {
  namespace asio = boost::asio;
  using boost::system::error_code;
  auto const& body = req.body;
  std::size_t const chunk = std::max<std::size_t>(cfg.io_chunk, 4096);
  c.watch_speed(cfg.low_speed_limit, cfg.low_speed_time.count() > 0 ? cfg.low_speed_time : std::chrono::seconds(30));
  if (body.type() == body_source::kind::memory) {
    auto data = body.bytes();
    std::size_t off = 0;
    bool head = true;
    while (off < data.size() || head) {
      auto const take = std::min(chunk, data.size() - off);
      std::array<asio::const_buffer, 2> bufs{asio::buffer(head ? std::string_view(c.wbuf_) : std::string_view{}),
                                             asio::buffer(data.substr(off, take))};
      error_code ec;
      std::size_t n = head ? c.send_now(bufs, ec) : 0;
      if (!ec && n < asio::buffer_size(bufs)) {
        auto [e, m] = co_await write_rest(c, bufs, n);
        ec = e;
        n += m;
      }
      if (!wrote(c, a, ec, n)) co_return;
      head = false;
      off += take;
      if (req.on_body_sent) req.on_body_sent(off);
    }
    co_return;
  }
  unique_fd fd;
  if (body.type() == body_source::kind::file) {
    fd.fd = ::open(body.path().c_str(), O_RDONLY | O_CLOEXEC);
    if (fd.fd < 0) {
      a.ec = errno_code();
      a.why = "cannot open the request body " + body.path() + ": " + error_reason(a.ec);
      co_return;
    }
  }
  // A restartable body starts a reader of its own for this attempt; bytes
  // read from it do not make the body unreplayable.
  body_source::read_fn fresh;
  if (auto const* r = restartable_of(body)) fresh = r->start();
  char* buf = c.chunk(chunk);
  std::uint64_t left = body.size();
  std::uint64_t pos = body.offset();
  while (left > 0) {
    auto const want = static_cast<std::size_t>(std::min<std::uint64_t>(left, chunk));
    std::size_t got = 0;
    if (fd.fd >= 0) {
      auto const n = ::pread(fd.fd, buf, want, static_cast<off_t>(pos));
      if (n < 0) {
        if (errno == EINTR) continue;
        a.ec = errno_code();
        a.why = "reading the request body " + body.path() + ": " + error_reason(a.ec);
        co_return;
      }
      got = static_cast<std::size_t>(n);
    } else {
      error_code ec;
      if (fresh) {
        got = fresh(std::span<char>(buf, want), ec);
      } else {
        a.body_consumed = true;
        got = body.reader()(std::span<char>(buf, want), ec);
      }
      if (ec) {
        a.ec = ec;
        a.why = "reading the request body stream: " + error_reason(ec);
        co_return;
      }
    }
    if (got == 0) {
      a.ec = errc::invalid_argument;
      a.why = "request body ended before its declared length";
      co_return;
    }
    auto [ec, n] = co_await c.async_write(asio::buffer(buf, got), tuple_awaitable);
    if (!wrote(c, a, ec, n)) co_return;
    left -= got;
    pos += got;
    if (req.on_body_sent) req.on_body_sent(body.size() - left);
  }
}

}  // namespace floe::http::detail
