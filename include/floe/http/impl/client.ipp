#pragma once
#include <floe/http/client.hpp>

#include <floe/http/connection.hpp>
#include <floe/http/exchange.hpp>
#include <floe/http/pool.hpp>
#include <floe/http/tls.hpp>

#include <boost/asio/this_coro.hpp>

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
