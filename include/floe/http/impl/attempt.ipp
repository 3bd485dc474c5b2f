#pragma once
#include <floe/http/attempt.hpp>

#include <floe/http/body_transfer.hpp>
#include <floe/http/reply_reader.hpp>
#include <floe/http/request_head.hpp>
#include <floe/http/restartable_body.hpp>

#include <boost/asio/buffer.hpp>

#include <algorithm>
#include <chrono>
#include <string_view>

namespace floe::http::detail {

// Feeds the bytes the connection has buffered to `r` and records a failure
// in `a`. A plain function: its temporaries stay off the coroutine frame.
inline void feed_buffered(connection& c, reply_reader& r, attempt_state& a) {
  auto const n = r.feed(std::string_view(static_cast<char const*>(c.rbuf_.data().data()), c.rbuf_.size()));
  c.rbuf_.consume(n);
  if (r.sink_touched()) a.sink_dirty = true;
  if (r.status() == reply_reader::state::failed) {
    a.ec = r.error();
    if (auto why = r.why(); !why.empty()) a.why = std::move(why);
  }
}

// A final reply's head must be whole within the idle timeout however its
// bytes trickle; its body is then held to the low-speed limit.
inline void watch_reply_head(connection& c, client_config const& cfg) {
  c.stop_speed();
  c.watch_head(cfg.idle_timeout);
}

inline void watch_body_speed(connection& c, client_config const& cfg) {
  c.end_head();
  c.watch_speed(cfg.low_speed_limit, cfg.low_speed_time.count() > 0 ? cfg.low_speed_time : std::chrono::seconds(30));
}

FLOE_DECL boost::asio::awaitable<bool> read_reply(connection& c, request const& req, response& res,
                                                  client_config const& cfg, attempt_state& a, bool interim) {
  namespace asio = boost::asio;
  reply_reader r(res, req, reply_limits{cfg.header_limit, cfg.body_limit, cfg.error_body_limit}, interim);
  bool awaiting_head = !interim;
  if (awaiting_head) watch_reply_head(c, cfg);
  for (;;) {
    if (c.rbuf_.size() > 0) {
      feed_buffered(c, r, a);
      if (awaiting_head && r.head_done()) {
        awaiting_head = false;
        watch_body_speed(c, cfg);
        if (req.on_reply_head && !req.on_reply_head()) {
          // Another attempt's reply head came first: this one is not read.
          a.ec = asio::error::operation_aborted;
          a.why = "another attempt's reply came first";
          co_return false;
        }
      }
      switch (r.status()) {
        case reply_reader::state::reading: break;
        case reply_reader::state::interim: co_return true;
        case reply_reader::state::done:
        case reply_reader::state::failed: co_return false;
      }
    }
    auto const want = std::max<std::size_t>(cfg.io_chunk, 4096);
    auto [ec, n] = co_await c.async_read_some(c.rbuf_.prepare(want), tuple_awaitable);
    c.rbuf_.commit(n);
    if (n > 0) {
      if (!a.reply_started) a.first_byte = std::chrono::steady_clock::now();
      a.reply_started = true;
      c.progress();
      c.count(n);
    }
    if (ec) {
      if (interim && c.timed_out() && !a.reply_started) co_return true;
      // The end of a reply delimited by the connection's close.
      if ((ec == asio::error::eof || ec == asio::ssl::error::stream_truncated) && c.rbuf_.size() == 0 && r.feed_eof())
        co_return false;
      io_failure(c, a, ec);
      co_return false;
    }
  }
}

// Writes the request head into c.wbuf_ (reused: no allocation once warm).
// The client refused what request_head_refusal refuses before the attempt.
inline void write_head(connection& c, endpoint const& ep, request const& req, bool expect_continue) {
  request_head_params p;
  p.absolute_form = c.absolute_form_;
  p.proxy_authorization = c.proxy_auth_;
  p.expect_continue = expect_continue;
  write_accepted_head(c.wbuf_, ep, req, p);
}

FLOE_DECL boost::asio::awaitable<void> run_attempt(connection& c, endpoint const& ep, request& req, response& res,
                                                   client_config const& cfg, attempt_state& a) {
  namespace asio = boost::asio;
  // A stream waits for 100-continue (it is sent once); a restartable one
  // need not.
  bool const expect = req.body.type() == body_source::kind::stream && req.body.size() > 0 && !restartable_of(req.body);
  write_head(c, ep, req, expect);
  ++c.uses_;
  a.sent = std::chrono::steady_clock::now();
  auto const idle = req.idle_timeout.count() > 0 ? req.idle_timeout : cfg.idle_timeout;
  c.watch(idle);
  bool const has_body = req.body.type() != body_source::kind::none && req.body.size() > 0;
  if (has_body && req.body.type() == body_source::kind::memory) {
    co_await write_body(c, req, cfg, a);  // the head goes with the first chunk
  } else {
    // The head alone: no body, a file or stream body, or one that waits for
    // 100 Continue.
    boost::system::error_code ec;
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
    c.watch(cfg.continue_timeout.count() > 0 ? cfg.continue_timeout : idle);
    bool const go_on = co_await read_reply(c, req, res, cfg, a, true);
    if (a.ec) co_return;
    c.watch(idle);
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

}  // namespace floe::http::detail
