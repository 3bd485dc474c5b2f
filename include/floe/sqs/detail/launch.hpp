#pragma once
// How an sqs::client operation starts for a completion token. `make`
// returns the operation's awaitable and owns every argument the operation
// uses (the run_* coroutines take them by value from it).
//
// asio::use_awaitable: the operation is an awaitable run by the caller's
// coroutine (no coroutine of its own, no completion hop), sharing its
// cancellation. Any other token: `make` runs as a coroutine of its own on
// the client's executor, cancelled through the handler's cancellation slot,
// completing on the handler's executor. Either way a thrown exception (a
// cancellation seen at a co_await, bad_alloc) completes as an error value.

#include <floe/http/client.hpp>
#include <floe/result.hpp>

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

namespace floe::sqs::detail {

template <class Result, class Make>
boost::asio::awaitable<Result> run_inline(Make make) {
  try {
    co_return co_await make();
  } catch (...) {
    co_return Result(http::detail::error_from_exception(std::current_exception()));
  }
}

template <class Result, class Make, class Token>
auto start(boost::asio::any_io_executor const& ex, Make&& make, Token&& token) {
  namespace asio = boost::asio;
  if constexpr (std::is_same_v<std::decay_t<Token>, asio::use_awaitable_t<asio::any_io_executor>>) {
    return run_inline<Result>(std::forward<Make>(make));
  } else {
    return asio::async_initiate<Token, void(Result)>(
        [ex](auto handler, auto mk) {
          auto slot = asio::get_associated_cancellation_slot(handler);
          auto hex = asio::get_associated_executor(handler, ex);
          asio::co_spawn(ex, std::move(mk),
                         asio::bind_cancellation_slot(
                             slot, asio::bind_executor(hex, [h = std::move(handler)](std::exception_ptr e,
                                                                                     Result v) mutable {
                               if (e) v = Result(http::detail::error_from_exception(e));
                               std::move(h)(std::move(v));
                             })));
        },
        token, std::forward<Make>(make));
  }
}

}  // namespace floe::sqs::detail
