#pragma once
// How a client operation (S3, SQS, STS) starts for a completion token. Its
// function object `make` returns the operation's awaitable and holds every
// argument the operation uses (the operations' coroutines may take them by
// reference from it); `ex` is the client's executor, a member of the
// client (it is used by pointer: an executor copied into an operation that
// GCC 12 relocates byte by byte, as it does class-type temporaries in a
// co_await expression, would point its inline target at the old place).
//
// Whatever the token, the operation runs on `ex`, with the same
// cancellation: terminal cancellation through the token's slot (a
// coroutine's own cancellation state for use_awaitable) reaches it.
//
// - asio::use_awaitable: when the calling coroutine already runs on `ex`
//   (the same executor, or the same strand), the operation is an awaitable
//   run by that coroutine — no coroutine of its own, no completion hop, its
//   cancellation state shared: the cheapest form, worth thousands of
//   instructions per GET. Otherwise it is co_spawned on `ex` and awaited:
//   the caller's slot is wired to it (Asio hands the cancellation to `ex`),
//   and the caller resumes on its own executor.
// - Any other token (asio::deferred, a callback, use_future, as_tuple...):
//   `make` runs as a coroutine of its own, co_spawned on `ex`, whose frame
//   keeps the function object alive until the operation completes; it is
//   cancelled through the handler's cancellation slot and completes on the
//   handler's associated executor (`ex` when it has none).
//
// Either way a thrown exception (a cancellation seen at a co_await,
// bad_alloc) completes as an error value.

#include <floe/http/client.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/associated_cancellation_slot.hpp>
#include <boost/asio/associated_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <exception>
#include <type_traits>
#include <utility>

// GCC 12 misreads the sized operator delete of Asio's coroutine frames.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

namespace floe::service::detail {

// The hop of run_awaited: make's awaitable co_spawned on `ex` and awaited
// from the caller's executor. `make` lives in run_awaited's frame, which
// outlives this one (it awaits it), so it is borrowed, not copied.
template <class Result, class Make>
boost::asio::awaitable<Result> run_elsewhere(boost::asio::any_io_executor const* ex, Make* make) {
  namespace asio = boost::asio;
  try {
    co_return co_await asio::co_spawn(*ex, (*make)(), asio::use_awaitable);
  } catch (...) {
    co_return Result(http::detail::error_from_exception(std::current_exception()));
  }
}

// use_awaitable: inline when the caller is on `ex`, else a hop to `ex` and
// back. The caller's executor is a named variable, not a temporary inside
// a co_await expression (GCC 12, above). This frame is the one every
// inline operation pays for: the hop's locals live in run_elsewhere's, so
// that it stays under the ~1 KiB Asio recycles (a bigger frame is an
// allocation per operation).
template <class Result, class Make>
boost::asio::awaitable<Result> run_awaited(boost::asio::any_io_executor const* ex, Make make) {
  namespace asio = boost::asio;
  auto const here = co_await asio::this_coro::executor;
  try {
    // One co_await for both paths (GCC gives each co_await's Result a slot
    // of its own in this frame), on a named awaitable (GCC 12 miscompiles
    // a conditional expression inside co_await).
    auto op = here == *ex ? make() : run_elsewhere<Result>(ex, &make);
    co_return co_await std::move(op);
  } catch (...) {
    co_return Result(http::detail::error_from_exception(std::current_exception()));
  }
}

// `ex` is kept by pointer: never a temporary.
template <class Result, class Make, class Token>
auto start(boost::asio::any_io_executor&& ex, Make&& make, Token&& token) = delete;

template <class Result, class Make, class Token>
auto start(boost::asio::any_io_executor const& ex, Make&& make, Token&& token) {
  namespace asio = boost::asio;
  if constexpr (std::is_same_v<std::decay_t<Token>, asio::use_awaitable_t<asio::any_io_executor>>) {
    return run_awaited<Result>(&ex, std::forward<Make>(make));
  } else {
    return asio::async_initiate<Token, void(Result)>(
        [client_ex = &ex](auto handler, auto mk) {
          auto slot = asio::get_associated_cancellation_slot(handler);
          auto hex = asio::get_associated_executor(handler, *client_ex);
          asio::co_spawn(*client_ex, std::move(mk),
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

}  // namespace floe::service::detail

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
