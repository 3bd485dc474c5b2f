#pragma once
// The refreshing credentials cache: a credentials::provider over a source
// that fetches temporary credentials (web identity, and later container,
// IMDS, role chains), run by the pure policy in refresh/policy.hpp.
//
// - Served from cache outside the advisory window; inside it one background
//   fetch runs while the cached set is served; requests block only inside
//   the mandatory window (60 s before expiry) or when no usable set exists.
// - Single flight: one fetch at a time, run detached on the cache's
//   executor (asio::co_spawn ... detached). Cancelling a waiting async_get
//   completes that waiter with asio::error::operation_aborted and never
//   aborts the fetch other waiters depend on.
// - Generations: each adopted set is numbered from 1 (credentials::
//   generation). invalidate(g) marks g and older bad; the next async_get
//   waits for a fetch started after the call; any number of invalidations
//   of the same generation cause one fetch.
// - A failed fetch keeps a still-valid set, never an invalidated one; fetch
//   errors never invalidate. Unproductive forced fetches back off
//   (escalating, jittered); meanwhile invalidate() is declined and the set
//   stays in use (see refresh/policy.hpp), so a real denial does not turn
//   into an STS storm. confirm(g) reports that the very request that was
//   rejected with an older generation succeeded on its retry with g: if g
//   came from a forced fetch, it cured a 403 and the back-off resets. That
//   is the only reset (other requests succeeding with g, or g serving long,
//   say nothing about the denial that forced it).
// - No timers: refreshes are started by requests (async_get / get), so an
//   idle cache costs nothing and time can be driven by a test clock.
//
// Threading: every member may be called from any thread; the state is
// guarded by a mutex, and handlers run on their own associated executors
// (posted there, never run inside the call or with the mutex held). A
// waiter's cancellation slot is only touched on its own executor: assigned
// in async_get's initiation, cleared just before its handler runs there
// (the caller emits on that executor too, as Asio requires). The source's
// fetch() runs on the cache's executor, one at a time.
// Lifetime: created by make_shared (create()); a fetch in flight holds a
// reference, so the cache outlives it.

#include <floe/config.hpp>
#include <floe/credentials/credentials.hpp>
#include <floe/credentials/provider.hpp>
#include <floe/error.hpp>
#include <floe/refresh/policy.hpp>
#include <floe/result.hpp>

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/cancellation_type.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace floe::credentials {

/// Where a refreshing cache gets its sets from.
class refreshing_source {
 public:
  refreshing_source() = default;
  refreshing_source(refreshing_source const&) = delete;
  refreshing_source& operator=(refreshing_source const&) = delete;
  virtual ~refreshing_source() = default;

  /// One fetch, on the cache's executor; never two at once. The set should
  /// have an expiry (none: it is served until invalidated). Errors are
  /// reported to waiters that have no usable set, with this source named.
  virtual boost::asio::awaitable<result<credentials>> fetch() = 0;

  /// For messages and the counters: "web identity (role ..., token file ...)".
  virtual std::string describe() const = 0;
};

struct refreshing_params {
  refresh::params policy;
  /// The wall clock; null: system_clock::now. Tests drive time with it.
  std::function<std::chrono::system_clock::time_point()> clock;
  /// Uniform draws in [0, 1) for jitter; null: a seeded PRNG.
  std::function<double()> random;
};

class refreshing_provider final : public provider, public std::enable_shared_from_this<refreshing_provider> {
  struct token {};

 public:
  /// The policy's counters plus the cache's own.
  struct statistics : refresh::counters {
    std::string source;              // describe() of the source
    std::uint64_t cancelled_waits = 0;
    std::optional<error> last_error; // of the last failed fetch (no secrets)
  };

  FLOE_DECL static std::shared_ptr<refreshing_provider> create(boost::asio::any_io_executor ex,
                                                               std::unique_ptr<refreshing_source> source,
                                                               refreshing_params params = {});

  FLOE_DECL refreshing_provider(token, boost::asio::any_io_executor ex, std::unique_ptr<refreshing_source> source,
                                refreshing_params params);
  FLOE_DECL ~refreshing_provider() override;

  /// The cached set when it may be served now (starting a background
  /// refresh in the advisory window); otherwise errc::credentials_unavailable
  /// (a fetch is needed: use async_get), or the last fetch error while
  /// fetches are backing off.
  FLOE_DECL result<credentials> get() override;
  FLOE_DECL void invalidate(std::uint64_t generation) noexcept override;
  bool refreshable() const noexcept override { return true; }
  FLOE_DECL std::string describe() const override;

  /// The very request that was rejected with an older generation succeeded
  /// on its one retry with `generation` (the S3 client calls this; never for
  /// other requests' successes).
  FLOE_DECL void confirm(std::uint64_t generation) noexcept override;

  /// Whether an invalidation now would be declined (forced back-off in
  /// force), and until when.
  FLOE_DECL std::optional<std::chrono::system_clock::time_point> forced_backoff_until() const;

  FLOE_DECL statistics stats() const;

  boost::asio::any_io_executor get_executor() const noexcept { return ex_; }

 protected:
  FLOE_DECL void do_async_get(boost::asio::any_completion_handler<get_signature> handler,
                              boost::asio::any_io_executor ex) override;

 private:
  struct waiter {
    std::uint64_t id = 0;
    std::uint64_t fetch_id = 0;
    boost::asio::any_completion_handler<get_signature> handler;
    boost::asio::any_io_executor ex;
    boost::asio::cancellation_slot slot;
  };
  // A waiter answered: run on `ex`, which clears `slot` (the waiter's, if
  // it had one) before invoking the handler.
  struct completion {
    boost::asio::any_completion_handler<get_signature> handler;
    boost::asio::any_io_executor ex;
    result<credentials> value;
    boost::asio::cancellation_slot slot{};
  };

  std::chrono::system_clock::time_point now() const;
  double draw();  // with mu_ held
  error unavailable() const;  // with mu_ held
  void spawn_fetch(std::uint64_t id);
  static boost::asio::awaitable<void> run_fetch(std::shared_ptr<refreshing_provider> self, std::uint64_t id);
  void cancel_waiter(std::uint64_t id);
  static void deliver(std::list<completion>& done);

  boost::asio::any_io_executor ex_;
  std::unique_ptr<refreshing_source> source_;
  refreshing_params params_;
  std::string source_name_;

  mutable std::mutex mu_;
  refresh::state state_;
  std::optional<credentials> current_;
  std::optional<error> last_error_;
  std::list<waiter> waiters_;
  std::uint64_t next_waiter_ = 1;
  std::uint64_t cancelled_ = 0;
  std::uint64_t rng_ = 0;
};

}  // namespace floe::credentials

#if defined(FLOE_HEADER_ONLY)
#include <floe/credentials/impl/refreshing.ipp>
#endif
