#pragma once
// Work that blocks, run off the client's executor: reading a file (or a
// part of one) to checksum it before its upload. One private thread per
// execution context, started on first use and joined when the context
// shuts down, as Asio runs `getaddrinfo` for its resolver. A job touches
// only what it was given; its result goes to the caller's handler through
// the handler's associated executor (the client's), so the caller resumes
// where it was, whatever the completion token. A job is not cancellable
// once it runs (one is a bounded read of a local file); jobs still queued
// when the context shuts down are destroyed, with their handlers, as Asio
// destroys the handlers of any operation left at shutdown.

#include <boost/asio/append.hpp>
#include <boost/asio/associated_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/execution/context.hpp>
#include <boost/asio/execution_context.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/query.hpp>

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>

namespace floe::detail {

class blocking_worker final : public boost::asio::execution_context::service {
 public:
  using key_type = blocking_worker;
  static inline boost::asio::execution_context::id id;

  struct job {
    virtual ~job() = default;
    virtual void run() = 0;
  };

  explicit blocking_worker(boost::asio::execution_context& ctx) : service(ctx) {}
  ~blocking_worker() override { stop(); }
  blocking_worker(blocking_worker const&) = delete;
  blocking_worker& operator=(blocking_worker const&) = delete;

  // Queues `j`; starts the thread on first use. After shutdown a job is
  // dropped (destroyed, never run).
  void submit(std::unique_ptr<job> j) {
    {
      std::lock_guard lock(mutex_);
      if (stopping_) return;
      queue_.push_back(std::move(j));
      if (!thread_.joinable()) thread_ = std::thread([this] { loop(); });
    }
    ready_.notify_one();
  }

 private:
  void shutdown() override { stop(); }

  void stop() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    ready_.notify_one();
    if (thread_.joinable()) thread_.join();
    std::deque<std::unique_ptr<job>> left;
    {
      std::lock_guard lock(mutex_);
      left.swap(queue_);
    }
  }

  void loop() {
    for (;;) {
      std::unique_ptr<job> j;
      {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
        if (stopping_) return;
        j = std::move(queue_.front());
        queue_.pop_front();
      }
      j->run();
    }
  }

  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::unique_ptr<job>> queue_;
  bool stopping_ = false;
  std::thread thread_;
};

// A job that runs `fn`, then posts its value to `handler` through the
// work-tracking executor `guard` holds.
template <class R, class Handler, class Guard, class F>
struct blocking_task final : blocking_worker::job {
  blocking_task(Handler h, Guard g, F f) : handler(std::move(h)), guard(std::move(g)), fn(std::move(f)) {}
  void run() override {
    R value = fn();
    auto to = guard.get_executor();
    boost::asio::post(to, boost::asio::append(std::move(handler), std::move(value)));
    guard.reset();
  }
  Handler handler;
  Guard guard;
  F fn;
};

// Runs `f()` (returning R) on the worker thread of `ex`'s execution context
// and completes `token` with its value on the handler's associated executor
// (`ex` when it has none). That executor counts as having work until then.
template <class R, class Executor, class F, class Token>
auto async_run_blocking(Executor const& ex, F f, Token&& token) {
  namespace asio = boost::asio;
  auto init = [](auto handler, Executor const& on, F work) {
    auto hex = asio::get_associated_executor(handler, on);
    using guard_t = asio::executor_work_guard<decltype(hex)>;
    using task_t = blocking_task<R, decltype(handler), guard_t, F>;
    auto& worker = asio::use_service<blocking_worker>(asio::query(on, asio::execution::context));
    worker.submit(std::make_unique<task_t>(std::move(handler), guard_t(hex), std::move(work)));
  };
  return asio::async_initiate<Token, void(R)>(init, token, ex, std::move(f));
}

}  // namespace floe::detail
