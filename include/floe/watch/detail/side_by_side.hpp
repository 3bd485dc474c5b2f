#pragma once
// Two coroutines of one object run side by side on the caller's executor;
// returns when both have ended, rethrowing the first one's exception, then
// the second one's. `token`: the watcher's use_awaitable (a template, so
// that a call from a watcher's member is compiled only with the watcher).

#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/deferred.hpp>
#include <boost/asio/experimental/parallel_group.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <exception>
#include <utility>

namespace floe::watch::detail {

template <class Token>
boost::asio::awaitable<void> side_by_side(boost::asio::awaitable<void> a, boost::asio::awaitable<void> b, Token token) {
  namespace asio = boost::asio;
  auto ex = co_await asio::this_coro::executor;
  // Named, not temporaries in the co_await (GCC 12: see s3/client.hpp).
  auto first = asio::co_spawn(ex, std::move(a), asio::deferred);
  auto second = asio::co_spawn(ex, std::move(b), asio::deferred);
  auto group = asio::experimental::make_parallel_group(std::move(first), std::move(second));
  auto [order, e_first, e_second] =
      co_await std::move(group).async_wait(asio::experimental::wait_for_all(), token);
  (void)order;
  if (e_first) std::rethrow_exception(e_first);
  if (e_second) std::rethrow_exception(e_second);
}

}  // namespace floe::watch::detail
