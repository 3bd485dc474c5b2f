#pragma once
// The watcher: S3 object events from an SQS queue, each new object that
// matches checked and registered exactly once in a ledger. The thin Asio
// runner over the pure core (batch.hpp, deletion.hpp, visibility.hpp,
// denial.hpp, metrics.hpp).
//
//   watch::watcher<sqs::client> w(sqs, s3, ledger, cfg, hooks);
//   auto r = co_await w.run();   // until w.stop()
//
// Receiving runs beside the work: while a batch is in work, up to
// cfg.receive_ahead more messages are received (held, their visibility
// kept up like the batch's), and the next batch is every message received
// since the last one began, so a batch's fixed round trips (ledger
// refresh, commit, delete) are shared by more objects as the queue fills,
// and a failing message costs a place in a receive but no batch's share:
// each object of the batch in work that fails gives a place back, filled
// at once (a receive of as many as fit), so the next batch holds as many
// messages that can commit as a clean batch would.
// Receives ahead are short polls (no wait; after an empty one, the next
// after a second or when the batch ends): a long poll cut short by stop()
// would live on at the queue and could take the very messages handed back.
//
// For each batch: plan it (parse, filter); delete at once the
// messages that ask for nothing; refresh the ledger; HEAD each object
// (cfg.head_concurrency at once; If-Match on the event's ETag, so a 412
// means replaced since, and a 404 deleted since: both settled, skipped);
// drop those the ledger holds already; run hooks.exec (a failure fails
// that object only); commit the rest in one commit; only when the commit
// is confirmed delete the messages whose objects all settled. A failed
// object keeps only its own messages: they stay invisible for a time that
// doubles with their receive count, counted from the receive (cfg.on_failure,
// release.hpp: no request when the receive's own timeout covers it), so a
// poison object comes back less and less often (and after maxReceiveCount
// goes to the dead-letter queue). While a batch is in work, its messages'
// visibility is extended before it runs out.
//
// At least once, exactly once: hooks.exec runs before the commit, so a
// crash between the two runs it again when the message comes back; the
// ledger registers the object once whatever happens. The in-memory ledger
// is checked before exec, so an object already registered (a message
// redelivered after its commit) is not run again; one registered by
// another replica meanwhile is found by the commit.
//
// Lag: each object counts for the oldest unregistered age (lag.hpp) from
// its receive until it settles, and its event time to its commit goes into
// the lag histogram (metrics.hpp). Beside the receive loop, the queue's
// message counts are read every cfg.queue_poll (GetQueueAttributes).
//
// Reconcile listings (cfg.reconcile_every): between batches, when one is
// due (no receive is sent during the pass), each pattern's literal prefix is listed a page at a time and the
// matching objects the ledger lacks go through the same HEAD / exec /
// commit path, one commit per page (reconcile.hpp).
//
// Refusals that outlive the clients' own credential heal: denial.hpp. The
// refused step is retried after the back-off, the batch stays in work (so
// nothing new is received) and its visibility keeps being extended.
//
// stop(): no new receive (a waiting long poll is cancelled), the batch in
// work finishes, or after cfg.stop_grace is abandoned with its messages
// left undeleted; every message received and not deleted (those of a poll
// answered while stopping too) is then handed back (visibility 0), so
// another watcher takes it at once; run() then completes. Call it on the
// watcher's executor.
//
// Queue: any type with the sqs::client API (queue_client below), so the
// real client drops in. Lifetimes: the queue client, the S3 client and the
// ledger outlive run(). Threading: one executor, one thread or a strand.

#include <floe/error.hpp>
#include <floe/ledger/ledger.hpp>
#include <floe/result.hpp>
#include <floe/s3/client.hpp>
#include <floe/sqs/batches.hpp>
#include <floe/sqs/messages.hpp>
#include <floe/sqs/queue.hpp>
#include <floe/sqs/queues.hpp>
#include <floe/watch/batch.hpp>
#include <floe/watch/deletion.hpp>
#include <floe/watch/denial.hpp>
#include <floe/watch/lag.hpp>
#include <floe/watch/metrics.hpp>
#include <floe/watch/reconcile.hpp>
#include <floe/watch/release.hpp>
#include <floe/watch/visibility.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <chrono>
#include <concepts>
#include <cstdint>
#include <deque>
#include <functional>
#include <random>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace floe::watch {

namespace detail {
// T, under a type that names Dep (see watcher::awaited).
template <class T, class Dep>
struct named_for {
  using type = T;
};
}  // namespace detail

/// The queue side a watcher needs: exactly sqs::client's API.
template <class Q>
concept queue_client = requires(Q& q, sqs::receive_message_params rp, sqs::delete_message_batch_params dp,
                                sqs::change_message_visibility_batch_params vp, sqs::get_queue_attributes_params ap,
                                sqs::queue_ref ref) {
  { q.async_call(std::move(rp), boost::asio::use_awaitable) }
      -> std::same_as<boost::asio::awaitable<result<sqs::receive_message_result>>>;
  { q.async_call(std::move(dp), boost::asio::use_awaitable) }
      -> std::same_as<boost::asio::awaitable<result<sqs::batch_result>>>;
  { q.async_call(std::move(vp), boost::asio::use_awaitable) }
      -> std::same_as<boost::asio::awaitable<result<sqs::batch_result>>>;
  { q.async_call(std::move(ap), boost::asio::use_awaitable) }
      -> std::same_as<boost::asio::awaitable<result<sqs::get_queue_attributes_result>>>;
  { q.async_queue_url(ref, boost::asio::use_awaitable) } -> std::same_as<boost::asio::awaitable<result<std::string>>>;
};

struct watcher_config {
  sqs::queue_ref queue;
  /// Which objects to act on. The ledger's location is filled in by the
  /// watcher from the ledger it is given.
  std::vector<pattern> patterns;
  event_limits limits;
  int max_messages = 10;                         // per receive, 1..10
  /// Messages received ahead while a batch is in work (a receive is sent
  /// while a whole one still fits), plus one for each object of the batch
  /// in work that failed (filled at once, at most receive_ahead more); 0: receive only between batches.
  std::size_t receive_ahead = 30;
  std::chrono::seconds wait{20};                 // long poll, 0..20 s
  std::chrono::seconds visibility_timeout{60};   // asked for on receive and on every extension
  unsigned head_concurrency = 8;
  backoff_config denial_backoff{};               // persisting refusals
  backoff_config error_backoff{std::chrono::milliseconds(500), std::chrono::milliseconds(30000)};  // failing receives
  std::chrono::milliseconds stop_grace{8000};    // after stop(): how long the batch in work may still run
  /// The visibility of a message whose object failed; first 0: visibility_timeout.
  failure_backoff on_failure{std::chrono::seconds(0), std::chrono::seconds(900)};
  /// How often the queue's message counts are read (GetQueueAttributes) for
  /// the floe_watch_queue_messages gauges; 0: never.
  std::chrono::seconds queue_poll{15};
  /// Reconcile listings (reconcile.hpp): how often; 0: never.
  std::chrono::milliseconds reconcile_every{0};
  /// Act on removal events: each writes a removal to the ledger (guarded by
  /// its sequencer: ledger/state.hpp); no HEAD, no exec.
  bool removals = false;
  std::string writer;                            // recorded in commits; empty: the ledger's
  std::size_t malformed_memory = 10000;          // message ids remembered so a malformed one is logged once
};

enum class log_level : std::uint8_t { info, warning, error };
FLOE_DECL std::string_view to_string(log_level l) noexcept;

/// One line's worth of news. Never holds a secret.
struct log_event {
  log_level level = log_level::info;
  std::string_view event;  // a fixed name: "registered", "denied", ...
  std::string message;     // for people
  std::vector<std::pair<std::string_view, std::string>> fields;  // for machines
};

struct watch_hooks {
  /// Runs for each new object after its HEAD (object.head_* filled); an
  /// error fails that object. Null: nothing to run.
  std::function<boost::asio::awaitable<result<void>>(object_work const&)> exec;
  /// Each object registered by a confirmed commit.
  std::function<void(object_work const&, std::uint64_t commit)> registered;
  std::function<void(log_event)> log;
};

template <queue_client Queue>
class watcher {
 public:
  using clock = std::chrono::steady_clock;

  watcher(Queue& q, s3::client& s3, ledger::ledger& l, watcher_config cfg, watch_hooks hooks)
      : q_(q), s3_(s3), l_(l), cfg_(std::move(cfg)), hooks_(std::move(hooks)),
        keeper_(cfg_.visibility_timeout), denial_(cfg_.denial_backoff), trouble_(cfg_.error_backoff),
        ready_(s3.get_executor()), room_(s3.get_executor()), wake_(s3.get_executor()) {
    if (cfg_.on_failure.first <= std::chrono::seconds(0)) cfg_.on_failure.first = cfg_.visibility_timeout;
    filter_.patterns = cfg_.patterns;
    filter_.limits = cfg_.limits;
    filter_.ledger_bucket = l.bucket();
    filter_.ledger_prefix = l.prefix();
    filter_.removals = cfg_.removals;
  }
  watcher(watcher const&) = delete;
  watcher& operator=(watcher const&) = delete;

  /// Resolves the queue, creates or loads the ledger, then receives and
  /// works until stop(). Errors: only before the first receive (the queue
  /// or the ledger cannot be reached); afterwards every failure is logged,
  /// counted and retried.
  boost::asio::awaitable<result<void>> run();

  /// One reconcile pass now, without the queue (no SQS request is made:
  /// floe ledger reconcile): creates or loads the ledger, lists each
  /// pattern's literal prefix a page at a time and sends every matching
  /// object the ledger lacks through the same HEAD / exec / commit path as
  /// an event's. Errors: the ledger cannot be created or loaded; a failing
  /// listing or object is in the report.
  boost::asio::awaitable<result<reconcile_report>> reconcile_now();

  /// Stops receiving; the batch in work finishes or is left within
  /// cfg.stop_grace. Idempotent.
  void stop();
  bool stopping() const noexcept { return stopping_; }

  metrics const& counters() const noexcept { return metrics_; }
  /// Health for /healthz and the gauges (credential refreshes are read from
  /// the S3 client's provider here).
  health current_health();
  std::string const& queue_url() const noexcept { return url_; }

 private:
  using time_point = clock::time_point;
  // The token of everything the watcher awaits: use_awaitable, under a type
  // that names Queue, so that each call with it is resolved when
  // watcher<Queue> is made, not where this header is read. The clients'
  // operations deduce their return types, and a call resolved where the
  // header is read compiles them there: 2 s more for every unit that
  // includes this header without making a watcher (bench/README.md, build
  // times).
  using awaited_t = typename detail::named_for<boost::asio::use_awaitable_t<>, Queue>::type;
  static constexpr awaited_t awaited{};
  boost::asio::awaitable<void> receive_loop();
  boost::asio::awaitable<void> work_loop();
  boost::asio::awaitable<void> receiver();
  bool may_receive() const noexcept { return receive_room() > 0; }
  std::size_t receive_room() const noexcept;
  boost::asio::awaitable<void> wait_on(boost::asio::steady_timer& t, time_point until);
  boost::asio::awaitable<void> hand_back_ahead();
  boost::asio::awaitable<void> poll_loop();
  boost::asio::awaitable<bool> receive_once();
  boost::asio::awaitable<reconcile_report> reconcile_once();
  boost::asio::awaitable<void> work_listed(std::vector<object_work> objects);
  double random01();
  boost::asio::awaitable<void> work_batch(std::vector<sqs::message> messages, time_point received);
  boost::asio::awaitable<void> work_objects();
  boost::asio::awaitable<void> check_object(std::size_t i);
  void fail_object(std::size_t i, std::string why);
  boost::asio::awaitable<void> commit_batch();
  boost::asio::awaitable<void> delete_messages(std::vector<std::size_t> const& indices, char const* why);
  boost::asio::awaitable<void> release_messages(std::vector<release_entry> entries);
  void note_backed_off(release_entry const& e);
  boost::asio::awaitable<void> keep_visible();
  boost::asio::awaitable<void> extend_due();
  boost::asio::awaitable<void> sleep(std::chrono::milliseconds d);
  template <class R, class Op>
  boost::asio::awaitable<R> retry_denied(Op& op, std::string_view what, stage st);
  void log(log_level lvl, std::string_view event, std::string message,
           std::vector<std::pair<std::string_view, std::string>> fields = {});
  void note_malformed(std::size_t m);
  void count_credentials();
  bool past_grace() const noexcept { return stopping_ && clock::now() >= grace_end_; }

  Queue& q_;
  s3::client& s3_;
  ledger::ledger& l_;
  watcher_config cfg_;
  watch_hooks hooks_;
  object_filter filter_;
  std::string url_;
  metrics metrics_;
  visibility_keeper keeper_;
  denial_gate denial_;
  denial_gate trouble_;  // failing receives other than refusals
  lag_tracker lag_;
  std::optional<std::uint64_t> queue_visible_;
  std::optional<std::uint64_t> queue_in_flight_;
  bool poll_failing_ = false;
  boost::asio::cancellation_signal poll_cancel_;
  std::optional<reconcile_schedule> reconcile_;
  std::mt19937_64 rng_{std::random_device{}()};
  batch batch_;
  std::vector<bool> deleted_;  // per message of batch_
  bool in_batch_ = false;
  bool reconciling_ = false;
  bool long_polling_ = false;                // a long poll is in flight (stop() cancels it)
  std::vector<sqs::message> ahead_;          // received, held, not yet in a batch
  std::size_t given_back_ = 0;               // places of the batch in work's failed objects
  time_point ahead_received_{};              // the latest receive's reply among them
  boost::asio::steady_timer ready_;          // the work loop waits on it for messages
  boost::asio::steady_timer room_;           // the receive loop waits on it for room
  bool stopping_ = false;
  time_point grace_end_{};
  boost::asio::cancellation_signal receive_cancel_;
  boost::asio::steady_timer wake_;           // the visibility keeper's; stop() re-arms it
  std::set<boost::asio::steady_timer*> sleepers_;  // back-off waits stop() cuts short
  std::set<std::string> malformed_seen_;
  std::deque<std::string> malformed_order_;
  std::uint64_t first_generation_ = 0;
};

}  // namespace floe::watch

#include <floe/watch/detail/watcher_run.hpp>
#include <floe/watch/detail/watcher_receive.hpp>
#include <floe/watch/detail/watcher_batch.hpp>
#include <floe/watch/detail/watcher_release.hpp>
#include <floe/watch/detail/watcher_reconcile.hpp>

#if defined(FLOE_HEADER_ONLY)
#include <floe/watch/impl/watcher.ipp>
#endif
