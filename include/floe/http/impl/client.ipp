#pragma once
#include <floe/http/client.hpp>

#include <floe/http/connection.hpp>
#include <floe/http/exchange.hpp>
#include <floe/http/pool.hpp>
#include <floe/http/tls.hpp>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

#include <chrono>
#include <new>

// http::client: the pool's bookkeeping and one exchange (exchange.hpp) as an
// operation of its own.

// GCC 12 misreads the sized operator delete of Asio's coroutine frames.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

namespace floe::http {

FLOE_DECL client::client(executor_type ex, client_config cfg)
    : ex_(std::move(ex)), cfg_(std::move(cfg)), quota_(cfg_.retry), state_(std::make_unique<detail::client_state>(ex_, cfg_.addresses)) {}

FLOE_DECL client::~client() { close_idle(); }

FLOE_DECL std::size_t client::idle_connections(endpoint const& ep) const noexcept {
  for (auto const& p : state_->pools)
    if (p->ep == ep) return p->idle.size();
  return 0;
}

FLOE_DECL std::vector<address_report> client::addresses(std::string_view host, std::uint16_t port) const {
  return state_->book->report(host, port, std::chrono::steady_clock::now());
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
  // The exchange reads the cancellation state itself: nothing may throw.
  co_await boost::asio::this_coro::throw_if_cancelled(false);
  error e;
  exchange_facts f;
  co_await run_exchange(cl, ep, req, res, 1, e, f);
  co_return e;
}

namespace detail {

// What a warm-up and the connections it opens share: each keeps it alive.
struct warm_up_state {
  explicit warm_up_state(boost::asio::any_io_executor const& ex, std::size_t n)
      : left(n), done(ex, std::chrono::steady_clock::time_point::max()), stops(n) {}
  std::size_t left;
  error first;
  boost::asio::steady_timer done;
  std::vector<boost::asio::cancellation_signal> stops;
};

// Opens one connection of a warm-up and parks it (counted in pool.total
// by the caller).
inline boost::asio::awaitable<void> warm_one(client& cl, client_state& st, endpoint const& ep,
                                             std::shared_ptr<warm_up_state> w, std::uint64_t& opened) {
  co_await boost::asio::this_coro::throw_if_cancelled(false);
  auto const& cfg = cl.config();
  auto c = std::make_shared<connection>(cl.get_executor(), st.dog);
  auto e = co_await connect(*c, ep, cfg, st.tls, st.book);
  if (e.code) {
    c->close();
    auto& pool = st.pool_for(ep);
    --pool.total;
    pool.wake_one();
    if (!w->first.code) w->first = std::move(e);
  } else {
    ++opened;
    release(cfg, st, ep, std::move(c), true);
  }
  if (--w->left == 0) w->done.cancel();
}

}  // namespace detail

FLOE_DECL boost::asio::awaitable<error> detail::run_warm_up(client& cl, endpoint ep, std::size_t n) {
  // `ep` lives in this frame, which outlives every connection it opens.
  namespace asio = boost::asio;
  co_await asio::this_coro::throw_if_cancelled(false);
  auto& st = *cl.state_;
  auto const& cfg = cl.cfg_;
  auto& pool = st.pool_for(ep);
  expire_idle(pool, cfg);
  std::size_t const cap = std::max<std::size_t>(cfg.max_connections_per_host, 1);
  std::size_t want = n > pool.idle.size() ? n - pool.idle.size() : 0;
  want = std::min(want, cap > pool.total ? cap - pool.total : 0);
  if (want == 0) co_return error{};
  auto w = std::make_shared<warm_up_state>(cl.get_executor(), want);
  for (std::size_t i = 0; i < want; ++i) {
    ++pool.total;
    asio::co_spawn(cl.get_executor(), warm_one(cl, st, ep, w, cl.stats_.connections_opened),
                   asio::bind_cancellation_slot(w->stops[i].slot(), [w](std::exception_ptr) {}));
  }
  // Children may end before this waits (one failing at once): the count,
  // not the timer, says when they are all done.
  bool stopped = false;
  while (w->left != 0) {
    co_await w->done.async_wait(tuple_awaitable);
    auto const cs = co_await asio::this_coro::cancellation_state;
    if (!stopped && w->left != 0 && cs.cancelled() != asio::cancellation_type::none) {
      stopped = true;  // stop the rest, then wait for them to end
      for (auto& s : w->stops) s.emit(asio::cancellation_type::terminal);
    }
  }
  if (stopped) co_return error(asio::error::operation_aborted);
  co_return std::move(w->first);
}

FLOE_DECL boost::asio::awaitable<result<response>> detail::run_send_value(client& c, endpoint const& ep,
                                                                          request& req) {
  response res;
  auto e = co_await run_send(c, ep, req, res);
  if (e.code) co_return e;
  co_return res;
}

}  // namespace floe::http

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
