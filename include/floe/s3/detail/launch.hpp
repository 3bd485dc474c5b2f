#pragma once
// How an s3::client operation starts for a completion token. Its function
// object `make` returns the operation's awaitable and holds every argument
// the operation borrows (the do_* coroutines take them by reference).
//
// Any token but asio::use_awaitable: make runs as a coroutine of its own
// (co_spawn) on the HTTP client's executor, whose frame keeps the function object alive until the
// operation completes; it completes on the handler's executor, cancelled
// through the handler's cancellation slot. With asio::use_awaitable the
// operation is instead an awaitable run by the caller's coroutine
// (run_inline): no coroutine thread of its own, no completion hop — the
// cheapest form.

#include <floe/http/client.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/associated_cancellation_slot.hpp>
#include <boost/asio/associated_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <exception>
#include <type_traits>
#include <utility>

namespace floe::s3::detail {

// The captures live in this frame; a failure thrown (cancellation seen at
// a co_await, bad_alloc) completes as an error value, as with co_spawn.
template <class Result, class Make>
boost::asio::awaitable<Result> run_inline(Make make) {
  try {
    co_return co_await make();
  } catch (...) {
    co_return Result(http::detail::error_from_exception(std::current_exception()));
  }
}

template <class Result, class Make, class Token>
auto start_spawned(http::client& hc, Make&& make, Token&& token) {
  namespace asio = boost::asio;
  return asio::async_initiate<Token, void(Result)>(
      [transport = &hc](auto handler, auto mk) {
        auto ex = transport->get_executor();
        auto slot = asio::get_associated_cancellation_slot(handler);
        auto hex = asio::get_associated_executor(handler, ex);
        asio::co_spawn(ex, std::move(mk),
                       asio::bind_cancellation_slot(
                           slot, asio::bind_executor(hex, [h = std::move(handler)](std::exception_ptr e, Result v) mutable {
                             if (e) v = http::detail::error_from_exception(e);
                             std::move(h)(std::move(v));
                           })));
      },
      token, std::forward<Make>(make));
}

template <class Result, class Make, class Token>
auto start(http::client& hc, Make&& make, Token&& token) {
  namespace asio = boost::asio;
  if constexpr (std::is_same_v<std::decay_t<Token>, asio::use_awaitable_t<asio::any_io_executor>>) {
    return run_inline<Result>(std::forward<Make>(make));
  } else {
    return start_spawned<Result>(hc, std::forward<Make>(make), std::forward<Token>(token));
  }
}

}  // namespace floe::s3::detail
