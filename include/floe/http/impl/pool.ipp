#pragma once
#include <floe/http/pool.hpp>

#include <floe/http/client.hpp>
#include <floe/http/connect.hpp>

#include <algorithm>
#include <chrono>

namespace floe::http::detail {

FLOE_DECL boost::asio::awaitable<void> acquire(client& cl, client_state& st, endpoint const& ep, bool& reused,
                                               std::shared_ptr<connection>& out, error& why) {
  namespace asio = boost::asio;
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
      auto e = co_await connect(*c, ep, cfg, st.tls, st.book);
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
    pool_waiter w{asio::steady_timer(cl.get_executor(), std::chrono::steady_clock::time_point::max())};
    pool.waiters.push_back(&w);
    co_await w.timer.async_wait(tuple_awaitable);
    if (!w.woken) {
      std::erase(pool.waiters, &w);
      why = error(asio::error::operation_aborted);
      co_return;
    }
  }
}

}  // namespace floe::http::detail
