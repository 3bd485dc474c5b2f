// detail/blocking_worker.hpp: blocking work (a file hashed before its
// upload) runs on the execution context's private thread, and the caller
// resumes on its own executor with the value; the context's shutdown joins
// the thread and drops what is still queued.
#include <floe/detail/blocking_worker.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <doctest/doctest.h>

#include <memory>
#include <optional>
#include <thread>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace core_blocking_worker_test {

namespace asio = boost::asio;
using floe::detail::async_run_blocking;

TEST_CASE("a blocking job runs off the executor's thread and its handler on the executor's thread") {
  asio::io_context ioc;
  std::thread::id job_thread;
  std::thread::id handler_thread;
  std::optional<int> got;
  async_run_blocking<int>(
      ioc.get_executor(),
      [&job_thread] {
        job_thread = std::this_thread::get_id();
        return 42;
      },
      [&](int v) {
        handler_thread = std::this_thread::get_id();
        got = v;
      });
  ioc.run();  // returns only once the handler ran: the job counts as work
  REQUIRE(got);
  CHECK(*got == 42);
  CHECK(handler_thread == std::this_thread::get_id());
  CHECK(job_thread != std::thread::id{});
  CHECK(job_thread != std::this_thread::get_id());
}

TEST_CASE("a coroutine awaiting a blocking job resumes on its executor, jobs in order on one thread") {
  asio::io_context ioc;
  std::vector<int> order;
  std::thread::id first_job;
  std::thread::id second_job;
  bool resumed_here = false;
  asio::co_spawn(
      ioc,
      [&]() -> asio::awaitable<void> {
        auto ex = co_await asio::this_coro::executor;
        auto one = [&] {
          first_job = std::this_thread::get_id();
          return 1;
        };
        order.push_back(co_await async_run_blocking<int>(ex, one, asio::use_awaitable));
        auto two = [&] {
          second_job = std::this_thread::get_id();
          return 2;
        };
        order.push_back(co_await async_run_blocking<int>(ex, two, asio::use_awaitable));
        resumed_here = true;
      },
      asio::detached);
  auto const main_thread = std::this_thread::get_id();
  ioc.run();
  CHECK(resumed_here);
  CHECK(order == std::vector<int>{1, 2});
  CHECK(first_job != main_thread);
  CHECK(first_job == second_job);  // one worker per context
}

TEST_CASE("destroying the context joins the worker and drops queued handlers uninvoked") {
  auto alive = std::make_shared<int>(0);
  std::weak_ptr<int> watch = alive;
  bool invoked = false;
  {
    asio::io_context ioc;
    for (int i = 0; i < 3; ++i) {
      async_run_blocking<int>(ioc.get_executor(), [] { return 7; },
                              [keep = alive, &invoked](int) { invoked = true; });
    }
    alive.reset();
    // The context is never run: each job may or may not have run on the
    // worker, but no handler can be invoked, and every one is destroyed
    // with the context.
  }
  CHECK_FALSE(invoked);
  CHECK(watch.expired());
}

}  // namespace core_blocking_worker_test
