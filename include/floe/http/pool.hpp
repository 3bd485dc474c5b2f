#pragma once
// A client's connections, pooled per (scheme, host, port): idle ones kept
// most recently used last and closed once older than pool_idle_timeout, at
// most max_connections_per_host open or opening, and requests beyond that
// waiting their turn in order.

#include <floe/config.hpp>
#include <floe/error.hpp>
#include <floe/http/address_book.hpp>
#include <floe/http/client_config.hpp>
#include <floe/http/connection.hpp>
#include <floe/http/deadline.hpp>
#include <floe/http/url.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <cstddef>
#include <deque>
#include <memory>
#include <vector>

namespace floe::http {

class client;

namespace detail {

struct pool_waiter {
  boost::asio::steady_timer timer;
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

// Everything a client keeps besides its settings and counters.
struct client_state {
  client_state(boost::asio::any_io_executor const& ex, address_params const& addresses)
      : dog(std::make_shared<watchdog>(ex)), book(std::make_shared<address_book>(addresses)) {}
  std::shared_ptr<watchdog> dog;
  std::shared_ptr<address_book> book;  // every address of every name connected to
  std::vector<std::unique_ptr<host_pool>> pools;
  std::shared_ptr<boost::asio::ssl::context> tls;

  host_pool& pool_for(endpoint const& ep) {
    for (auto& p : pools)
      if (p->ep.port == ep.port && p->ep.tls == ep.tls && p->ep.host == ep.host) return *p;
    pools.push_back(std::make_unique<host_pool>());
    pools.back()->ep = ep;
    return *pools.back();
  }
};

// Closes the idle connections of `pool` past the expiry, oldest first.
inline void expire_idle(host_pool& pool, client_config const& cfg) {
  if (cfg.pool_idle_timeout.count() <= 0 || pool.idle.empty()) return;
  auto const now = std::chrono::steady_clock::now();
  std::size_t expired = 0;
  while (expired < pool.idle.size() && now - pool.idle[expired]->idle_since_ >= cfg.pool_idle_timeout) ++expired;
  for (std::size_t i = 0; i < expired; ++i) {
    pool.idle[i]->close();
    --pool.total;
  }
  pool.idle.erase(pool.idle.begin(), pool.idle.begin() + static_cast<std::ptrdiff_t>(expired));
}

// The most recently used idle connection, if any (no coroutine frame).
inline std::shared_ptr<connection> take_idle(client_config const& cfg, client_state& st, endpoint const& ep) {
  auto& pool = st.pool_for(ep);
  expire_idle(pool, cfg);
  if (pool.idle.empty()) return nullptr;
  auto c = std::move(pool.idle.back());
  pool.idle.pop_back();
  return c;
}

// Takes an idle connection or opens one, waiting while the pool is full:
// `out` is the connection (and `reused` says which), or null with the
// failure in `why`. Out-parameters rather than a returned pair: the
// caller's coroutine frame then holds no temporary of its own for the result.
FLOE_DECL boost::asio::awaitable<void> acquire(client& cl, client_state& st, endpoint const& ep, bool& reused,
                                               std::shared_ptr<connection>& out, error& why);

// Gives a connection back: to the idle list when `reusable`, else closed.
inline void release(client_config const& cfg, client_state& st, endpoint const& ep, std::shared_ptr<connection> c,
                    bool reusable) {
  auto& pool = st.pool_for(ep);
  c->stop_watch();
  if (reusable && cfg.pool_idle_timeout.count() >= 0) {
    c->idle_since_ = std::chrono::steady_clock::now();
    pool.idle.push_back(std::move(c));
  } else {
    c->close();
    --pool.total;
  }
  pool.wake_one();
}

}  // namespace detail
}  // namespace floe::http

#if defined(FLOE_HEADER_ONLY)
#include <floe/http/impl/pool.ipp>
#endif
