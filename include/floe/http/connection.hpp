#pragma once
// One TCP (optionally TLS) connection of a client's pool: the stream, its
// read and write buffers, and reads and writes on whichever stream it is.
// Its deadlines are kept by the client's watchdog (deadline.hpp).

#include <floe/http/address_book.hpp>
#include <floe/http/deadline.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/deferred.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace floe::http::detail {

// How the client awaits an I/O operation: a deferred operation (no
// coroutine frame of its own) completing with its error as a value.
inline constexpr auto tuple_awaitable = boost::asio::as_tuple(boost::asio::deferred);

// The address a connection went to, counted as open in the client's address
// book until the connection closes (the book outlives the client if a
// connection does).
struct address_lease {
  std::shared_ptr<address_book> book;
  std::string host;  // the (host, port) the book knows it under
  std::uint16_t port = 0;
  boost::asio::ip::address addr;

  explicit operator bool() const noexcept { return book != nullptr; }
  void release() noexcept {
    if (!book) return;
    book->release(host, port, addr);
    book.reset();
  }
  void failed(address_failure why) const {
    if (book) book->failed(host, port, addr, why, std::chrono::steady_clock::now());
  }
  void succeeded() const noexcept {
    if (book) book->succeeded(host, port, addr);
  }
};

class connection final : public deadline {
 public:
  using tcp = boost::asio::ip::tcp;
  using error_code = boost::system::error_code;

  connection(boost::asio::any_io_executor const& ex, std::shared_ptr<watchdog> dog)
      : deadline(std::move(dog)), sock_(ex) {}
  ~connection() {
    stop_watch();
    lease_.release();
  }

  tcp::socket sock_;
  std::optional<boost::asio::ssl::stream<tcp::socket&>> tls_;
  std::optional<tcp::resolver> resolver_;
  boost::beast::flat_buffer rbuf_;
  std::string wbuf_;
  std::unique_ptr<char[]> chunk_;
  std::size_t chunk_size_ = 0;
  bool absolute_form_ = false;  // plain HTTP through a proxy
  std::string proxy_auth_;
  unsigned uses_ = 0;
  std::chrono::steady_clock::time_point idle_since_{};
  address_lease lease_;
  std::string peer_;  // "ip:port" connected to (the proxy's when one is used)

  void close() noexcept {
    stop_watch();
    lease_.release();
    error_code ig;
    if (resolver_) resolver_->cancel();
    sock_.shutdown(tcp::socket::shutdown_both, ig);
    sock_.close(ig);
  }

  // A buffer of at least `n` bytes for a streamed body, kept between requests.
  char* chunk(std::size_t n) {
    if (chunk_size_ < n) {
      chunk_.reset(new char[n]);
      chunk_size_ = n;
    }
    return chunk_.get();
  }

  // Initiating functions rather than coroutines: no frame per read or write.
  template <class Token>
  auto async_read_some(boost::asio::mutable_buffer b, Token&& token) {
    return boost::asio::async_initiate<Token, void(error_code, std::size_t)>(
        [this](auto handler, boost::asio::mutable_buffer buf) {
          if (tls_)
            tls_->async_read_some(buf, std::move(handler));
          else
            sock_.async_read_some(buf, std::move(handler));
        },
        token, b);
  }
  // Plain TCP only (the socket is non-blocking from connect on): hands the
  // kernel what it takes now, with no asynchronous operation. Asio posts the
  // completion of even a write that finished at once, and a queued handler
  // makes the io_context poll epoll once more; a request head or a small
  // body almost always goes in one send. Returns 0 on TLS; would-block is
  // not an error.
  template <class Buffers>
  std::size_t send_now(Buffers const& b, error_code& ec) {
    namespace error = boost::asio::error;
    ec = {};
    if (tls_) return 0;
    auto const n = sock_.send(b, 0, ec);
    if (ec == error::would_block || ec == error::try_again || ec == error::interrupted) ec = {};
    return n;
  }
  template <class Buffers, class Token>
  auto async_write(Buffers const& b, Token&& token) {
    return boost::asio::async_initiate<Token, void(error_code, std::size_t)>(
        [this](auto handler, Buffers const& bufs) {
          if (tls_)
            boost::asio::async_write(*tls_, bufs, std::move(handler));
          else
            boost::asio::async_write(sock_, bufs, std::move(handler));
        },
        token, b);
  }

 private:
  void on_expired() noexcept override {
    error_code ig;
    if (resolver_) resolver_->cancel();
    sock_.cancel(ig);
  }
};

// Whether a reused connection failed because the server had closed it.
inline bool is_stale_connection_error(boost::system::error_code const& ec) {
  namespace error = boost::asio::error;
  return ec == error::eof || ec == error::connection_reset || ec == error::broken_pipe ||
         ec == error::connection_aborted || ec == boost::asio::ssl::error::stream_truncated;
}

}  // namespace floe::http::detail
