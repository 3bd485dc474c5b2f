#pragma once
#include <floe/http/client.hpp>
#include <floe/http/proxy.hpp>
#include <floe/http/tls.hpp>
#include <floe/retry/clock_skew.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/deferred.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/buffers_suffix.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/basic_parser.hpp>
#include <boost/beast/http/error.hpp>

#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <charconv>
#include <deque>
#include <optional>
#include <random>
#include <vector>

// GCC 12 misreads the sized operator delete of Asio's coroutine frames.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

namespace floe::http {

namespace detail {

namespace asio = boost::asio;
namespace ssl = boost::asio::ssl;
namespace beast = boost::beast;
using tcp = asio::ip::tcp;
using steady = std::chrono::steady_clock;
using boost::system::error_code;

constexpr auto tuple_awaitable = asio::as_tuple(asio::deferred);

// A file descriptor closed on scope exit.
struct unique_fd {
  int fd = -1;
  unique_fd() = default;
  explicit unique_fd(int f) : fd(f) {}
  unique_fd(unique_fd const&) = delete;
  unique_fd& operator=(unique_fd const&) = delete;
  ~unique_fd() {
    if (fd >= 0) ::close(fd);
  }
};

inline error_code errno_code() { return {errno, boost::system::system_category()}; }

class connection;

// One timer watching every connection of a client that has an operation
// under way (connect, TLS handshake, request, reply). An I/O operation only
// stamps its connection's last progress; the timer is armed at the earliest
// deadline and re-armed when it fires, or when a sooner deadline appears (a
// connect or 100-continue limit shorter than the idle one). A connection that
// finishes a request costs no timer operation: with many requests in flight,
// a per-connection timer cancelled and re-armed per request cost ~2 µs of CPU
// each (timer-queue work, a posted cancellation, an extra epoll poll). When
// the last connection stops being watched, a posted check cancels the timer
// unless another request has started meanwhile, so io_context::run still
// returns once nothing is in flight.
class watchdog : public std::enable_shared_from_this<watchdog> {
 public:
  explicit watchdog(asio::any_io_executor const& ex) : timer_(ex) {}

  void add(connection& c, steady::time_point due);
  void remove(connection& c) noexcept;

 private:
  void arm(steady::time_point due);
  void on_timer(error_code ec, std::uint64_t gen);
  void post_idle_check() noexcept;
  void disarm() noexcept;

  asio::steady_timer timer_;
  std::vector<connection*> watched_;
  steady::time_point armed_due_{};
  std::uint64_t gen_ = 0;
  bool armed_ = false;
  bool idle_check_posted_ = false;
};

// One TCP (optionally TLS) connection. Its deadlines are kept by the
// client's watchdog: an operation stamps `last_progress_`, nothing more.
class connection {
 public:
  connection(asio::any_io_executor const& ex, std::shared_ptr<watchdog> dog) : sock_(ex), dog_(std::move(dog)) {}
  ~connection() { stop_watch(); }
  connection(connection const&) = delete;
  connection& operator=(connection const&) = delete;

  tcp::socket sock_;
  std::optional<ssl::stream<tcp::socket&>> tls_;
  std::optional<tcp::resolver> resolver_;
  beast::flat_buffer rbuf_;
  std::string wbuf_;
  std::unique_ptr<char[]> chunk_;
  std::size_t chunk_size_ = 0;
  bool absolute_form_ = false;  // plain HTTP through a proxy
  std::string proxy_auth_;
  unsigned uses_ = 0;
  steady::time_point idle_since_{};

  // --- deadlines ------------------------------------------------------------
  // Starts (or restarts) watching: no progress for `limit` cancels the
  // socket's operations and marks the connection timed out. 0: no limit.
  void watch(std::chrono::milliseconds limit) {
    limit_ = limit;
    timed_out_ = false;
    if (limit.count() <= 0) return stop_watch();
    last_progress_ = steady::now();
    dog_->add(*this, last_progress_ + limit_);
  }
  // After a transfer that moved bytes. If the deadline passed while this
  // transfer's completion was already queued, the watchdog marked the
  // connection timed out but had nothing to cancel: the transfer did
  // progress, so the clock restarts instead of leaving the rest of the
  // exchange without a deadline.
  void progress() {
    if (watch_slot_ != not_watched)
      last_progress_ = steady::now();
    else if (timed_out_ && limit_.count() > 0)
      watch(limit_);
  }
  void stop_watch() noexcept {
    if (watch_slot_ != not_watched) dog_->remove(*this);
  }
  bool timed_out() const noexcept { return timed_out_; }

  void close() noexcept {
    stop_watch();
    error_code ig;
    if (resolver_) resolver_->cancel();
    sock_.shutdown(tcp::socket::shutdown_both, ig);
    sock_.close(ig);
  }

  char* chunk(std::size_t n) {
    if (chunk_size_ < n) {
      chunk_.reset(new char[n]);
      chunk_size_ = n;
    }
    return chunk_.get();
  }

  // --- I/O on whichever stream this is ------------------------------------
  // Initiating functions rather than coroutines: no frame per read or write.
  template <class Token>
  auto async_read_some(asio::mutable_buffer b, Token&& token) {
    return asio::async_initiate<Token, void(error_code, std::size_t)>(
        [this](auto handler, asio::mutable_buffer buf) {
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
    ec = {};
    if (tls_) return 0;
    auto const n = sock_.send(b, 0, ec);
    if (ec == asio::error::would_block || ec == asio::error::try_again || ec == asio::error::interrupted) ec = {};
    return n;
  }
  template <class Buffers, class Token>
  auto async_write(Buffers const& b, Token&& token) {
    return asio::async_initiate<Token, void(error_code, std::size_t)>(
        [this](auto handler, Buffers const& bufs) {
          if (tls_)
            asio::async_write(*tls_, bufs, std::move(handler));
          else
            asio::async_write(sock_, bufs, std::move(handler));
        },
        token, b);
  }

 private:
  friend class watchdog;
  static constexpr std::size_t not_watched = static_cast<std::size_t>(-1);

  steady::time_point due() const noexcept { return last_progress_ + limit_; }
  // Called by the watchdog once the deadline has passed.
  void expire() noexcept {
    timed_out_ = true;
    error_code ig;
    if (resolver_) resolver_->cancel();
    sock_.cancel(ig);
  }

  std::shared_ptr<watchdog> dog_;
  steady::time_point last_progress_{};
  std::chrono::milliseconds limit_{0};
  std::size_t watch_slot_ = not_watched;  // index in the watchdog's list
  bool timed_out_ = false;
};

inline void watchdog::add(connection& c, steady::time_point due) {
  if (c.watch_slot_ == connection::not_watched) {
    c.watch_slot_ = watched_.size();
    watched_.push_back(&c);
  }
  if (!armed_ || due < armed_due_) arm(due);
}

inline void watchdog::remove(connection& c) noexcept {
  auto const i = c.watch_slot_;
  connection* const last = watched_.back();
  watched_[i] = last;
  last->watch_slot_ = i;
  watched_.pop_back();
  c.watch_slot_ = connection::not_watched;
  if (watched_.empty() && armed_) post_idle_check();
}

inline void watchdog::arm(steady::time_point due) {
  armed_ = true;
  armed_due_ = due;
  auto const gen = ++gen_;
  timer_.expires_at(due);  // cancels a pending wait: its handler sees an old gen
  timer_.async_wait([self = shared_from_this(), gen](error_code ec) { self->on_timer(ec, gen); });
}

inline void watchdog::on_timer(error_code ec, std::uint64_t gen) {
  if (gen != gen_) return;  // superseded by a later arm() or an idle check
  armed_ = false;
  if (ec) return;
  auto const now = steady::now();
  auto next = steady::time_point::max();
  for (std::size_t i = 0; i < watched_.size();) {
    connection& c = *watched_[i];
    if (now >= c.due()) {
      remove(c);  // moves the last one into slot i
      c.expire();
      continue;
    }
    next = std::min(next, c.due());
    ++i;
  }
  if (!watched_.empty()) arm(next);
}

inline void watchdog::post_idle_check() noexcept {
  if (idle_check_posted_) return;
  idle_check_posted_ = true;
  try {
    asio::post(timer_.get_executor(), [self = shared_from_this()] {
      self->idle_check_posted_ = false;
      if (self->watched_.empty()) self->disarm();
    });
  } catch (...) {  // no memory for the handler: cancel now instead
    idle_check_posted_ = false;
    disarm();
  }
}

inline void watchdog::disarm() noexcept {
  if (!armed_) return;
  ++gen_;
  armed_ = false;
  timer_.cancel();
}

struct pool_waiter {
  asio::steady_timer timer;
  bool woken = false;
};

struct host_pool {
  endpoint ep;
  std::vector<std::shared_ptr<connection>> idle;  // most recently used last
  std::size_t total = 0;                          // open or opening
  std::deque<pool_waiter*> waiters;

  void wake_one() {
    if (waiters.empty()) return;
    auto* w = waiters.front();
    waiters.pop_front();
    w->woken = true;
    w->timer.cancel();
  }
};

struct client_state {
  explicit client_state(asio::any_io_executor const& ex) : dog(std::make_shared<watchdog>(ex)) {}
  std::shared_ptr<watchdog> dog;
  std::vector<std::unique_ptr<host_pool>> pools;
  std::shared_ptr<ssl::context> tls;
  std::minstd_rand rng{std::random_device{}()};

  host_pool& pool_for(endpoint const& ep) {
    for (auto& p : pools)
      if (p->ep.port == ep.port && p->ep.tls == ep.tls && p->ep.host == ep.host) return *p;
    pools.push_back(std::make_unique<host_pool>());
    pools.back()->ep = ep;
    return *pools.back();
  }
};

// What one attempt did, for the retry decision.
struct attempt_state {
  error_code ec;
  std::string why;            // extra words for diagnostics
  bool reached_server = false;
  bool body_consumed = false;
  bool timed_out = false;
  bool reply_started = false;
  bool sink_dirty = false;    // bytes went to a sink that cannot be reset
  bool reusable = false;
};

// Reply parser writing fields into response::headers and the body straight
// to where it belongs; no per-field allocation, no body copy for sinks.
class reply_parser final : public beast::http::basic_parser<false> {
 public:
  reply_parser(response& res, request const& req, client_config const& cfg, attempt_state& a)
      : res_(res), req_(req), cfg_(cfg), a_(a) {}
  ~reply_parser() override = default;
  reply_parser(reply_parser const&) = delete;
  reply_parser& operator=(reply_parser const&) = delete;

  unique_fd file_;

 private:
  void on_request_impl(beast::http::verb, beast::string_view, beast::string_view, int, error_code& ec) override {
    ec = beast::http::error::bad_version;
  }
  void on_response_impl(int code, beast::string_view, int, error_code&) override {
    res_.status = static_cast<unsigned>(code);
    res_.headers.clear();
    res_.body.clear();
    res_.body_bytes = 0;
  }
  void on_field_impl(beast::http::field, beast::string_view name, beast::string_view value, error_code& ec) override {
    res_.headers.add(name, value);
    if (!res_.headers.valid()) ec = make_error_code(errc::malformed_reply);
  }
  void on_header_impl(error_code&) override {}
  void on_body_init_impl(boost::optional<std::uint64_t> const& length, error_code& ec) override {
    bool const ok = res_.status >= 200 && res_.status < 300;
    target_ = !ok ? target::error_memory : req_.sink.type() == body_sink::kind::memory ? target::memory
              : req_.sink.type() == body_sink::kind::file                            ? target::file
                                                                                     : target::stream;
    limit_ = target_ == target::error_memory ? cfg_.error_body_limit
             : target_ == target::memory     ? cfg_.body_limit
                                             : UINT64_MAX;
    if (length && *length > limit_) {
      too_large();
      ec = make_error_code(errc::reply_too_large);
      return;
    }
    if (length && (target_ == target::memory || target_ == target::error_memory))
      res_.body.reserve(static_cast<std::size_t>(*length));
    if (target_ == target::file) {
      file_.fd = ::open(req_.sink.path().c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      if (file_.fd < 0) ec = errno_code();
    }
  }
  std::size_t deliver(std::string_view piece, error_code& ec) {
    if (res_.body_bytes + piece.size() > limit_) {
      too_large();
      ec = make_error_code(errc::reply_too_large);
      return 0;
    }
    switch (target_) {
      case target::memory:
      case target::error_memory: res_.body.append(piece); break;
      case target::file: {
        std::size_t done = 0;
        while (done < piece.size()) {
          auto const n = ::write(file_.fd, piece.data() + done, piece.size() - done);
          if (n < 0) {
            if (errno == EINTR) continue;
            ec = errno_code();
            return done;
          }
          done += static_cast<std::size_t>(n);
        }
        break;
      }
      case target::stream:
        a_.sink_dirty = true;
        req_.sink.writer()(piece, ec);
        if (ec) return 0;
        break;
    }
    res_.body_bytes += piece.size();
    return piece.size();
  }
  std::size_t on_body_impl(beast::string_view body, error_code& ec) override { return deliver(body, ec); }
  void on_chunk_header_impl(std::uint64_t, beast::string_view, error_code&) override {}
  std::size_t on_chunk_body_impl(std::uint64_t, beast::string_view body, error_code& ec) override {
    return deliver(body, ec);
  }
  void on_finish_impl(error_code&) override {}

  void too_large() {
    a_.why = (target_ == target::error_memory ? "the error reply's body (status " + std::to_string(res_.status) +
                                                    ") exceeds client_config::error_body_limit ("
                                              : std::string("the reply body exceeds client_config::body_limit (")) +
             std::to_string(limit_) + " bytes)";
  }

  enum class target : std::uint8_t { memory, error_memory, file, stream };
  response& res_;
  request const& req_;
  client_config const& cfg_;
  attempt_state& a_;
  target target_ = target::memory;
  std::uint64_t limit_ = 0;
};

inline void append_uint(std::string& s, std::uint64_t v) {
  char buf[24];
  auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v);
  (void)ec;
  s.append(buf, p);
}

inline bool is_stale_connection_error(error_code const& ec) {
  return ec == asio::error::eof || ec == asio::error::connection_reset || ec == asio::error::broken_pipe ||
         ec == asio::error::connection_aborted || ec == ssl::error::stream_truncated;
}

// Whether the operation's cancellation slot fired; called as
// is_cancelled(co_await this_coro::cancellation_state) (no coroutine frame).
inline bool is_cancelled(asio::cancellation_state const& cs) noexcept {
  return cs.cancelled() != asio::cancellation_type::none;
}

// Serialises the request head into c.wbuf_ (reused: no allocation once warm).
inline void write_head(connection& c, endpoint const& ep, request const& req, bool expect_continue) {
  auto& w = c.wbuf_;
  w.clear();
  w.append(req.method).append(" ");
  if (c.absolute_form_) {
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
      append_uint(w, ep.port);
    }
    w.append("\r\n");
  }
  w.append(req.headers.wire());
  bool const has_body = req.body.type() != body_source::kind::none;
  if (has_body || req.method == "PUT" || req.method == "POST" || req.method == "PATCH") {
    w.append("Content-Length: ");
    append_uint(w, req.body.size());
    w.append("\r\n");
  }
  if (expect_continue) w.append("Expect: 100-continue\r\n");
  if (!c.proxy_auth_.empty() && c.absolute_form_) w.append("Proxy-Authorization: ").append(c.proxy_auth_).append("\r\n");
  w.append("\r\n");
}

// Reads one reply head-and-body into res. With `interim`, returns after a
// 100 Continue (true) or when the watchdog fires before any byte (true,
// nothing read); a final reply is read whole (false). 1xx other than an
// awaited 100 are skipped.
inline asio::awaitable<bool> read_reply(connection& c, request const& req, response& res, client_config const& cfg,
                                        attempt_state& a, bool interim) {
  for (;;) {
    reply_parser p(res, req, cfg, a);
    p.header_limit(cfg.header_limit);
    p.body_limit(boost::none);
    p.eager(true);
    if (req.method == "HEAD") p.skip(true);
    for (;;) {
      if (c.rbuf_.size() > 0) {
        error_code ec;
        auto const n = p.put(c.rbuf_.data(), ec);
        c.rbuf_.consume(n);
        if (ec && ec != beast::http::error::need_more) {
          a.ec = ec;
          if (ec == beast::http::error::header_limit) {
            // Deterministic: the same reply would come again, so no retry.
            a.ec = errc::reply_too_large;
            a.why = "the reply head exceeds client_config::header_limit (" + std::to_string(cfg.header_limit) +
                    " bytes)";
          } else if (ec.category() != floe_category() && ec.category() != boost::system::system_category()) {
            a.why = "malformed reply: " + ec.message();
            a.ec = errc::malformed_reply;
          }
          co_return false;
        }
        if (p.is_done()) break;
        if (n > 0 && c.rbuf_.size() > 0) continue;
      }
      auto const want = std::max<std::size_t>(cfg.io_chunk, 4096);
      auto [ec, n] = co_await c.async_read_some(c.rbuf_.prepare(want), tuple_awaitable);
      c.rbuf_.commit(n);
      if (n > 0) {
        a.reply_started = true;
        c.progress();
      }
      if (ec) {
        if (interim && c.timed_out() && !a.reply_started) co_return true;
        if (ec == asio::error::eof || ec == ssl::error::stream_truncated) {
          if (c.rbuf_.size() == 0 && p.got_some() && !p.is_done()) {
            error_code e2;
            p.put_eof(e2);
            if (!e2 && p.is_done()) break;
          }
        }
        a.ec = ec;
        if (c.timed_out()) {
          a.timed_out = true;
          a.ec = errc::timeout;
        }
        co_return false;
      }
    }
    if (res.status >= 100 && res.status < 200) {
      if (interim && res.status == 100) co_return true;
      continue;  // skip an interim reply nobody waits for
    }
    res.keep_alive = p.keep_alive();
    co_return false;
  }
}

// Sends the body (after the head in c.wbuf_ when `with_head`).
// Records a failed read or write; a watchdog expiry becomes errc::timeout.
inline void io_failure(connection const& c, attempt_state& a, error_code ec) {
  a.ec = ec;
  if (c.timed_out()) {
    a.timed_out = true;
    a.ec = errc::timeout;
  }
}

// Records what a write of the request did: whether bytes reached the server,
// progress, or the failure. False when it failed.
inline bool wrote(connection& c, attempt_state& a, error_code ec, std::size_t n) {
  if (n > 0) a.reached_server = true;
  if (ec) {
    io_failure(c, a, ec);
    return false;
  }
  c.progress();
  return true;
}

// The part of `b` after the `done` bytes send_now handed over, as one
// asynchronous write. A deferred operation, not a coroutine: no frame, on
// TLS (where send_now takes nothing) or plain TCP alike. A long body's later
// chunks come here with done = 0, so that they yield to other work on the
// io_context between chunks.
template <class Buffers>
auto write_rest(connection& c, Buffers const& b, std::size_t done) {
  beast::buffers_suffix<Buffers> rest(b);
  rest.consume(done);
  return c.async_write(rest, tuple_awaitable);
}

// The request's body. A memory body takes the head along in its first write
// (one send for a small request); for a file or stream body run_attempt has
// sent the head already. An empty body never comes here.
inline asio::awaitable<void> write_body(connection& c, request& req, client_config const& cfg, attempt_state& a) {
  auto const& body = req.body;
  std::size_t const chunk = std::max<std::size_t>(cfg.io_chunk, 4096);
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
      a.why = "cannot open the request body " + body.path();
      co_return;
    }
  }
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
        a.why = "reading the request body " + body.path();
        co_return;
      }
      got = static_cast<std::size_t>(n);
    } else {
      a.body_consumed = true;
      error_code ec;
      got = body.reader()(std::span<char>(buf, want), ec);
      if (ec) {
        a.ec = ec;
        a.why = "reading the request body stream";
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

inline asio::awaitable<void> run_attempt(client& cl, connection& c, endpoint const& ep, request& req, response& res,
                                         attempt_state& a) {
  auto const& cfg = cl.config();
  bool const expect = req.body.type() == body_source::kind::stream && req.body.size() > 0;
  write_head(c, ep, req, expect);
  ++c.uses_;
  c.watch(cfg.idle_timeout);
  bool const has_body = req.body.type() != body_source::kind::none && req.body.size() > 0;
  if (has_body && req.body.type() == body_source::kind::memory) {
    co_await write_body(c, req, cfg, a);  // the head goes with the first chunk
  } else {
    // The head alone: no body, a file or stream body, or one that waits for
    // 100 Continue.
    error_code ec;
    std::size_t n = c.send_now(asio::buffer(c.wbuf_), ec);
    if (!ec && n < c.wbuf_.size()) {
      auto [e, m] = co_await write_rest(c, asio::const_buffer(asio::buffer(c.wbuf_)), n);
      ec = e;
      n += m;
    }
    if (!wrote(c, a, ec, n)) co_return;
    if (has_body && !expect) co_await write_body(c, req, cfg, a);
  }
  if (expect) {
    c.watch(cfg.continue_timeout.count() > 0 ? cfg.continue_timeout : cfg.idle_timeout);
    bool const go_on = co_await read_reply(c, req, res, cfg, a, true);
    if (a.ec) co_return;
    c.watch(cfg.idle_timeout);
    if (!go_on) {
      // A final answer before the body (403, redirect, 5xx): the body was not
      // sent, so the connection's framing is unknown to the server. Close it.
      a.reusable = false;
      co_return;
    }
    res.status = 0;
    res.headers.clear();
    co_await write_body(c, req, cfg, a);
  }
  if (a.ec) co_return;
  co_await read_reply(c, req, res, cfg, a, false);
  if (a.ec) co_return;
  a.reusable = res.keep_alive && c.rbuf_.size() == 0;
}

inline asio::awaitable<error> connect(client& cl, client_state& st, connection& c, endpoint const& ep) {
  auto const& cfg = cl.config();
  auto proxy = select_proxy(cfg.proxy, ep);
  if (!proxy) co_return proxy.error();
  endpoint const& hop = *proxy ? (*proxy)->ep : ep;
  auto where = [&] {
    std::string s = hop.host + ":" + std::to_string(hop.port);
    if (*proxy) s += " (proxy for " + ep.host + ":" + std::to_string(ep.port) + ")";
    return s;
  };
  auto timed = [&](error_code ec, char const* what) {
    if (c.timed_out()) return error(errc::timeout, std::string(what) + " " + where() + " timed out");
    return detail::with_message(ec, std::string(what) + " " + where());
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
    c.resolver_.emplace(cl.get_executor());
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
    if (!st.tls) {
      auto ctx = make_tls_context(cfg.tls);
      if (!ctx) co_return ctx.error();
      st.tls = *ctx;
    }
    c.tls_.emplace(c.sock_, *st.tls);
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
      auto e = timed(he, "TLS handshake with");
      if (long const v = SSL_get_verify_result(ssl); v != X509_V_OK)
        e.diag.message += std::string(": certificate verification failed: ") + X509_verify_cert_error_string(v);
      co_return e;
    }
  }
  c.stop_watch();
  co_return error{};
}

// Closes the idle connections of `pool` past the expiry, oldest first.
inline void expire_idle(host_pool& pool, client_config const& cfg) {
  if (cfg.pool_idle_timeout.count() <= 0 || pool.idle.empty()) return;
  auto const now = steady::now();
  std::size_t expired = 0;
  while (expired < pool.idle.size() && now - pool.idle[expired]->idle_since_ >= cfg.pool_idle_timeout) ++expired;
  for (std::size_t i = 0; i < expired; ++i) {
    pool.idle[i]->close();
    --pool.total;
  }
  pool.idle.erase(pool.idle.begin(), pool.idle.begin() + static_cast<std::ptrdiff_t>(expired));
}

// The most recently used idle connection, if any (no coroutine frame).
inline std::shared_ptr<connection> take_idle(client const& cl, client_state& st, endpoint const& ep) {
  auto& pool = st.pool_for(ep);
  expire_idle(pool, cl.config());
  if (pool.idle.empty()) return nullptr;
  auto c = std::move(pool.idle.back());
  pool.idle.pop_back();
  return c;
}

// Takes an idle connection or opens one, waiting while the pool is full.
// Out-parameters rather than a returned pair: the caller's coroutine frame
// then holds no temporary of its own for the result.
inline asio::awaitable<void> acquire(client& cl, client_state& st, endpoint const& ep, bool& reused,
                                     std::shared_ptr<connection>& out, error& why) {
  auto const& cfg = cl.config();
  auto& pool = st.pool_for(ep);
  for (;;) {
    expire_idle(pool, cfg);
    if (!pool.idle.empty()) {
      auto c = std::move(pool.idle.back());
      pool.idle.pop_back();
      reused = true;
      out = std::move(c);
      co_return;
    }
    if (pool.total < std::max<std::size_t>(cfg.max_connections_per_host, 1)) {
      ++pool.total;
      auto c = std::make_shared<connection>(cl.get_executor(), st.dog);
      auto e = co_await connect(cl, st, *c, ep);
      if (e.code) {
        c->close();
        --pool.total;
        pool.wake_one();
        why = std::move(e);
        co_return;
      }
      reused = false;
      out = std::move(c);
      co_return;
    }
    pool_waiter w{asio::steady_timer(cl.get_executor(), steady::time_point::max())};
    pool.waiters.push_back(&w);
    co_await w.timer.async_wait(tuple_awaitable);
    if (!w.woken) {
      std::erase(pool.waiters, &w);
      why = error(asio::error::operation_aborted);
      co_return;
    }
  }
}

inline void release(client& cl, client_state& st, endpoint const& ep, std::shared_ptr<connection> c, bool reusable) {
  auto& pool = st.pool_for(ep);
  c->stop_watch();
  if (reusable && cl.config().pool_idle_timeout.count() >= 0) {
    c->idle_since_ = steady::now();
    pool.idle.push_back(std::move(c));
  } else {
    c->close();
    --pool.total;
  }
  pool.wake_one();
}

// Tells the exchange observer what one attempt did (never a body).
inline void observe(client_config const& cfg, endpoint const& ep, request const& req, response const& res,
                    attempt_state const& a, unsigned attempt, bool resend, bool reused, steady::time_point t0) {
  exchange_view v;
  v.operation = req.operation;
  v.method = req.method;
  v.ep = &ep;
  v.target = req.target;
  v.request_headers = &req.headers;
  v.ec = a.ec;
  if (!a.ec && res.status != 0) {
    v.status = res.status;
    v.reply_headers = &res.headers;
  }
  v.attempt = attempt;
  v.resend = resend;
  v.reused_connection = reused;
  v.elapsed = steady::now() - t0;
  cfg.observer(v);
}

// Completes a failure with what is known of the operation.
inline error finish_error(retry::operation const& op, request const& req, response& res, error e,
                          attempt_state const* a) {
  e.diag.attempt = op.attempt();
  if (e.diag.operation.empty()) e.diag.operation = req.operation;
  if (e.diag.resource.empty()) e.diag.resource = req.target;
  if (a && !a->why.empty()) {
    if (!e.diag.message.empty()) e.diag.message += ": ";
    e.diag.message += a->why;
  }
  res.attempts = op.attempt();
  return e;
}

// run_send_into's way out with a failure: `out` becomes it, completed.
inline void fail(error& out, retry::operation const& op, request const& req, response& res, error e) {
  out = finish_error(op, req, res, std::move(e), nullptr);
}

// The wait before a retry, in a frame of its own (only a retry pays for it).
inline asio::awaitable<void> back_off(asio::any_io_executor ex, std::chrono::nanoseconds delay) {
  asio::steady_timer t(ex, delay);
  co_await t.async_wait(tuple_awaitable);
}

// How an attempt ended, as a plain function (its temporaries stay off the
// coroutine frame): over (`out` is the exchange's result) or another attempt
// after `delay`.
struct settled {
  bool over = false;
  std::chrono::nanoseconds delay{0};
};

inline settled settle(client_config const& cfg, client_state& st, std::chrono::seconds& skew, retry::operation& op,
                      retry::request_traits const& traits, request& req, response& res, attempt_state const& a,
                      error& out) {
  retry::attempt_outcome o;
  o.reached_server = a.reached_server;
  o.body_consumed = a.body_consumed || a.sink_dirty;
  o.timed_out = a.timed_out;
  o.reply_received = !a.ec;
  if (a.ec) {
    if (a.ec == errc::reply_too_large || a.ec == errc::invalid_argument) {
      // The request or the reply is wrong: trying again changes nothing.
      out = detail::finish_error(op, req, res, error(a.ec), &a);
      return {true};
    }
    o.kind = errors::kind::transient;
  } else {
    o.kind = req.classify ? req.classify(req, res) : default_classify(req, res);
    res.kind = o.kind;
    if (o.kind == errors::kind::clock_skew)
      if (auto sk = retry::skew_from_date(res.headers.get("Date"), std::chrono::system_clock::now())) skew = *sk;
  }
  double const r01 = cfg.random ? cfg.random() : std::uniform_real_distribution<double>(0.0, 1.0)(st.rng);
  unsigned const this_attempt = op.attempt();
  auto const d = op.on_outcome(traits, o, r01);
  res.attempts = this_attempt;
  if (d.what == retry::action::done) {
    out.clear();
    return {true};
  }
  if (d.what == retry::action::stop) {
    if (o.reply_received) {
      res.retry_stop = d.reason;
      out.clear();
      return {true};
    }
    auto e = detail::finish_error(op, req, res, error(a.ec), &a);
    e.diag.attempt = this_attempt;
    if (d.reason == errc::unknown_outcome) {
      e.code = make_error_code(errc::unknown_outcome);
      e.diag.message = "the reply to a conditional write was lost (" + a.ec.message() + ")" +
                       (a.why.empty() ? "" : ": " + a.why);
    } else if (d.reason != errc::ok && d.reason != errors::to_errc(o.kind)) {
      if (!e.diag.message.empty()) e.diag.message += "; ";
      e.diag.message += "not retried: " + make_error_code(d.reason).message();
    }
    out = std::move(e);
    return {true};
  }
  return {false, d.delay};
}

}  // namespace detail

FLOE_DECL client::client(executor_type ex, client_config cfg)
    : ex_(std::move(ex)), cfg_(std::move(cfg)), quota_(cfg_.retry), state_(std::make_unique<detail::client_state>(ex_)) {}

FLOE_DECL client::~client() { close_idle(); }

FLOE_DECL std::size_t client::idle_connections(endpoint const& ep) const noexcept {
  for (auto const& p : state_->pools)
    if (p->ep == ep) return p->idle.size();
  return 0;
}

FLOE_DECL void client::close_idle() {
  for (auto& p : state_->pools) {
    for (auto& c : p->idle) c->close();
    p->total -= p->idle.size();
    p->idle.clear();
  }
}

FLOE_DECL error detail::error_from_exception(std::exception_ptr const& e) {
  try {
    std::rethrow_exception(e);
  } catch (boost::system::system_error const& se) {
    return detail::with_message(se.code(), se.what());
  } catch (std::bad_alloc const&) {
    return error(make_error_code(boost::system::errc::not_enough_memory));
  } catch (std::exception const& ex) {
    return error(errc::invalid_argument, ex.what());
  } catch (...) {
    return error(errc::invalid_argument, "unknown exception");
  }
}

FLOE_DECL boost::asio::awaitable<error> detail::run_send(client& cl, endpoint const& ep, request& req,
                                                         response& res) {
  error e;
  co_await run_send_into(cl, ep, req, res, e);
  co_return e;
}

FLOE_DECL boost::asio::awaitable<void> detail::run_send_into(client& cl, endpoint const& ep, request& req,
                                                             response& res, error& err) {
  namespace asio = boost::asio;
  co_await asio::this_coro::throw_if_cancelled(false);
  auto& st = *cl.state_;
  auto const& cfg = cl.cfg_;
  retry::operation op(cfg.retry, cl.quota_);
  retry::request_traits traits = req.traits;
  // A stream sink that already took bytes cannot take them again: the
  // attempt is then as unrepeatable as a consumed stream body.
  traits.replayable_body = req.body.replayable() && req.sink.resettable();
  unsigned stale_resends = 0;
  bool resending = false;  // this attempt resends one that met a closed pooled connection
  if (req.body.type() == body_source::kind::memory && req.body.bytes().size() != req.body.size())
    co_return detail::fail(err, op, req, res, error(errc::invalid_argument, "body size mismatch"));

  err.clear();  // this attempt's error, then the exchange's result
  for (;;) {
    if (req.sign) {
      err = req.sign(req, attempt_info{op.attempt(), cl.skew_});
      if (err.code) co_return detail::fail(err, op, req, res, std::move(err));
    }
    if (!req.headers.valid())
      co_return detail::fail(err, op, req, res, error(errc::invalid_argument, "a request header contains CR, LF or NUL"));
    res.status = 0;
    res.headers.clear();
    res.body.clear();
    res.body_bytes = 0;
    res.keep_alive = false;
    res.retry_stop = errc::ok;

    bool reused = true;
    auto const t0 = cfg.observer ? detail::steady::now() : detail::steady::time_point{};
    auto conn = detail::take_idle(cl, st, ep);
    err.clear();
    if (!conn) co_await acquire(cl, st, ep, reused, conn, err);
    detail::attempt_state a;
    if (!conn) {
      if (detail::is_cancelled(co_await asio::this_coro::cancellation_state) || err.code == asio::error::operation_aborted)
        co_return detail::fail(err, op, req, res, error(asio::error::operation_aborted));
      a.ec = err.code;
      a.timed_out = err.code == errc::timeout;
      a.reached_server = false;
      if (!err.diag.message.empty()) a.why = err.diag.message;
      if (cfg.observer) detail::observe(cfg, ep, req, res, a, op.attempt(), false, false, t0);
      if (err.diag.http_status != 0) co_return detail::fail(err, op, req, res, std::move(err));  // proxy refused CONNECT
    } else {
      if (reused) conn->rbuf_.clear();
      ++cl.stats_.attempts;
      if (!reused) ++cl.stats_.connections_opened;
      co_await run_attempt(cl, *conn, ep, req, res, a);
      if (cfg.observer) detail::observe(cfg, ep, req, res, a, op.attempt(), resending, reused, t0);
      resending = false;
      bool const was_cancelled = detail::is_cancelled(co_await asio::this_coro::cancellation_state);
      release(cl, st, ep, std::move(conn), !a.ec && a.reusable && !was_cancelled);
      if (was_cancelled) co_return detail::fail(err, op, req, res, error(asio::error::operation_aborted));
      if (a.ec == asio::error::operation_aborted && !a.timed_out)
        co_return detail::fail(err, op, req, res, error(asio::error::operation_aborted));
      // A reused connection the server had already closed: resend, outside
      // the attempt count and the quota, when the retry policy allows it.
      if (a.ec && reused && !a.reply_started && detail::is_stale_connection_error(a.ec)) {
        char const* const refusal =
            retry::stale_resend_refusal(traits, a.body_consumed, stale_resends, cfg.max_stale_resends);
        if (!refusal) {
          ++stale_resends;
          ++cl.stats_.stale_resends;
          resending = true;
          continue;
        }
        // Whether the server acted on the request before closing is unknown.
        if (a.why.empty()) {
          a.why = "the server closed the reused connection without replying; not resent: ";
          a.why += refusal;
        }
      }
    }

    auto const next = detail::settle(cfg, st, cl.skew_, op, traits, req, res, a, err);
    if (next.over) co_return;
    if (next.delay.count() > 0) {
      co_await detail::back_off(cl.get_executor(), next.delay);
      if (detail::is_cancelled(co_await asio::this_coro::cancellation_state))
        co_return detail::fail(err, op, req, res, error(asio::error::operation_aborted));
    }
  }
}

FLOE_DECL boost::asio::awaitable<result<response>> detail::run_send_value(client& c, endpoint const& ep,
                                                                          request& req) {
  response res;
  error e;
  co_await run_send_into(c, ep, req, res, e);
  if (e.code) co_return e;
  co_return res;
}

}  // namespace floe::http

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
