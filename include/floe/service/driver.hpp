#pragma once
// service::driver: the one request path of every service. A thin coroutine
// runner over request_machine (the decisions: retries and their quota, the
// heal after stale credentials, the clock skew, conditional writes): it asks
// the credentials provider, signs each attempt with SigV4, sends it through
// http's single exchange, decodes the reply by the service's protocol
// (protocol.hpp) and does what the machine answers. S3, STS and SQS each
// own one; the credential endpoints (IMDS, container, SSO) own an unsigned
// one, so they retry by the same rules.
//
// A service adds only what is its own: its description (id, signing name,
// protocol, retryable codes), and per request a request_spec (what to sign,
// how to name it) with, optionally, request_hooks (S3's region redirect, a
// body built again for each try).
//
// Threading: a driver runs on its http::client's executor; use it from one
// thread or a strand. Lifetimes: the driver must outlive its requests; the
// spec, request and response must outlive the call.

#include <floe/config.hpp>
#include <floe/credentials/credentials.hpp>
#include <floe/credentials/provider.hpp>
#include <floe/error.hpp>
#include <floe/http/client.hpp>
#include <floe/http/message.hpp>
#include <floe/http/url.hpp>
#include <floe/http/exchange.hpp>
#include <floe/retry/hedge.hpp>
#include <floe/retry/policy.hpp>
#include <floe/service/protocol.hpp>
#include <floe/service/request_machine.hpp>
#include <floe/sigv4/canonical.hpp>
#include <floe/sigv4/signer.hpp>

#include <boost/asio/async_result.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/deferred.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace floe::http {
struct exchange_facts;
}

namespace floe::service {

/// What a service is, for the driver. Views of static text.
struct description {
  std::string_view id;            // the endpoint resolver's id: "s3", "sts", "sqs", "imds"
  std::string_view signing_name;  // SigV4's service name: "s3", "sts", "sqs"
  protocol proto = protocol::query;
  /// S3's signing rules: the path as sent (no normalisation) and a signed
  /// X-Amz-Content-SHA256.
  bool s3_signing = false;
  /// The service's own "try again" codes beyond the classifier's (STS:
  /// IDPCommunicationError, InvalidIdentityToken, throttling): retried with
  /// back-off within the attempts and the quota.
  bool (*retryable_code)(std::string_view code) = nullptr;
};

struct request_spec;

namespace detail {
// A hedge's own request and reply, made when one is first sent.
struct hedge_scratch {
  http::request req;
  http::response res;
  error out;
  http::exchange_facts xf;
  std::chrono::steady_clock::time_point sent{};
};
// One hedgeable attempt's race: whose reply head came first, and the
// waits that ends (service/impl/driver_race.ipp).
struct head_race;
}  // namespace detail

/// What a service adds to one request. Every member has a default that
/// does nothing.
class request_hooks {
 public:
  /// Before every attempt but the first (a retry, the heal, a redirect):
  /// build the body again (STS reads its token file again), refuse (a
  /// streamed GET whose sink took bytes). An error ends the request with it.
  virtual error before_resend(request_spec& spec, http::request& req) {
    (void)spec, (void)req;
    return {};
  }
  /// A reply classified as a redirect: whether the service follows it,
  /// having aimed `spec` (endpoint, region, path) and `req` anew.
  virtual bool follow_redirect(request_spec& spec, http::request& req, http::response const& res) {
    (void)spec, (void)req, (void)res;
    return false;
  }
  /// Adds the service's own words to a reply's error.
  virtual void describe(error& e, http::response const& res, credentials::credentials const* signer) {
    (void)e, (void)res, (void)signer;
  }

 protected:
  ~request_hooks() = default;
};

/// One request beyond its http::request: where it goes, what is signed and
/// how errors name it. Views must outlive the request; a hook that aims the
/// request anew points them at new storage.
struct request_spec {
  std::string_view operation;  // "GetObject", "SendMessage": diagnostics and the exchange observer
  std::string_view resource;   // "bkt/k", a queue URL, a role ARN: diagnostics
  http::endpoint const* ep = nullptr;
  std::string_view region;     // signed for
  std::string_view path = "/"; // as on the wire, without the query
  std::span<sigv4::query_param_view const> query;
  /// Hex SHA-256 of the body, or sigv4::unsigned_payload.
  std::string_view payload_hash;
  /// false: sent unsigned (no credentials asked; IMDS, container, SSO,
  /// AssumeRoleWithWebIdentity).
  bool signs = true;
  /// Sign with these instead of the provider's (STS's AssumeRole with a
  /// caller's set): no heal.
  credentials::credentials const* fixed = nullptr;
  /// The request fetches credentials (STS's AssumeRole*, IMDS, container,
  /// SSO): its failure is never stale_credentials (it must not invalidate
  /// the cache it feeds).
  bool credential_fetch = false;
  bool conditional_read = false;  // a 304 is a success
  bool if_match = false;          // a conditional write with If-Match (404 NoSuchKey: gone)
  bool may_200_error = false;     // S3: the operation may answer 200 with <Error>
  request_hooks* hooks = nullptr;
  /// The call's deadline on the steady clock, set once for every request
  /// of one call (a download's resumes share it), with the whole `budget`
  /// for the error's words. None: the driver's config().retry.deadline
  /// from this request's start, when not zero.
  std::optional<std::chrono::steady_clock::time_point> deadline;
  std::chrono::nanoseconds budget{0};
  /// A read that may be hedged (S3's GetObject into memory, HeadObject,
  /// the List operations; never a write, nor any SQS or STS call): when
  /// its reply has not come within the delay learned for it, a second
  /// attempt goes out on another connection and the first reply head wins.
  bool hedgeable = false;
  /// The hedgeable read's reply is an object whose size varies (S3's
  /// GetObject): its hedge delay is learned per size band, the band of a
  /// ranged read its length's, of a whole object the median of recent
  /// replies' sizes (retry/size_band.hpp). False (HEAD, List): one band.
  bool sized_reply = false;

  // The driver's scratch for this request, kept here rather than in its
  // coroutine frame (Asio recycles frames only up to ~1 KiB).
  credentials::credentials owned;  // a set fetched for this request (not lent)
  std::unique_ptr<error> stale;    // the reply that made it invalidate, if it heals
  std::unique_ptr<detail::hedge_scratch> hedge;  // a hedge's request and reply, once one was sent
};

/// Settings of a driver beyond its http::client's.
struct driver_config {
  /// Standard retry mode: attempts, back-off, the quota's costs. The quota
  /// itself is the http::client's.
  retry::standard_params retry;
  /// The wall clock used for signing; null: system_clock::now.
  std::function<std::chrono::system_clock::time_point()> clock;
  /// Uniform draws in [0, 1) for the back-off; null: the http::client's
  /// config().random, else a PRNG private to the driver.
  std::function<double()> random;
  /// Hedged reads (request_spec::hedgeable): on by default.
  retry::hedge_params hedge;
};

/// What a driver's hedged reads did (its client's executor only).
struct hedge_stats {
  std::uint64_t sent = 0;  // hedges sent
  std::uint64_t won = 0;   // hedges whose reply head came first
  std::uint64_t late = 0;  // first attempts cut as too late (no hedge)
};

class driver {
 public:
  /// `http` must outlive the driver. `provider` null: the driver only sends
  /// unsigned requests (a signed one fails with credentials_unavailable).
  FLOE_DECL driver(http::client& http, description d, std::shared_ptr<credentials::provider> provider,
                   driver_config cfg);
  driver(driver const&) = delete;
  driver& operator=(driver const&) = delete;

  http::client& http() noexcept { return http_; }
  description const& service() const noexcept { return desc_; }
  credentials::provider* provider() const noexcept { return provider_.get(); }
  std::shared_ptr<credentials::provider> const& shared_provider() const noexcept { return provider_; }
  driver_config const& config() const noexcept { return cfg_; }
  hedge_stats const& hedges() const noexcept { return hedge_stats_; }
  std::chrono::system_clock::time_point now() const { return cfg_.clock ? cfg_.clock() : std::chrono::system_clock::now(); }

  /// Sends one request: credentials, SigV4 per attempt, send, decode,
  /// retry, heal. `out` is cleared on success (the reply in `res`; a 304 to
  /// a conditional read and a 2xx are successes); otherwise it is the
  /// failure, naming the operation, the resource, the status, the code, the
  /// message, the request id and the attempts made — and `res` holds the
  /// last reply, if any (`res.kind`, `res.retry_stop`, `res.attempts`).
  /// Runs in the calling coroutine and shares its cancellation state:
  /// terminal cancellation aborts the attempt in flight or the back-off
  /// (out: operation_aborted). With a deadline (spec.deadline, else
  /// config().retry.deadline) no attempt or back-off starts that would
  /// pass it, an attempt or credentials fetch in flight when it passes is
  /// cut (its connection closed), and `out` is errc::timeout naming the
  /// budget and the attempts made. Never throws (except std::bad_alloc).
  FLOE_DECL boost::asio::awaitable<void> run(request_spec& spec, http::request& req, http::response& res, error& out);

  /// run() as an asynchronous operation of its own for any completion
  /// token: completes with the error (empty: success). Runs on the
  /// http::client's executor; cancelled through the token's slot.
  template <class Token = boost::asio::deferred_t>
  auto async_run(request_spec& spec, http::request& req, http::response& res, Token&& token = {}) {
    return boost::asio::async_initiate<Token, void(error)>(
        [this](auto handler, request_spec* s, http::request* rq, http::response* rs) {
          http::detail::spawn<void(error)>(http_.get_executor(), run_value(*s, *rq, *rs), std::move(handler));
        },
        token, &spec, &req, &res);
  }

 private:
  FLOE_DECL boost::asio::awaitable<error> run_value(request_spec& spec, http::request& req, http::response& res);
  // run's helpers, out of its coroutine frame.
  FLOE_DECL credentials::credentials const* lend_or_get(request_spec& spec, std::shared_ptr<credentials::credentials const>& lent,
                                                        error& why);
  FLOE_DECL boost::asio::awaitable<void> fetch(credentials::credentials& out, error& why);
  FLOE_DECL error sign(request_spec const& spec, http::request& req, credentials::credentials const& c);
  FLOE_DECL errors::reply_facts facts_of(request_spec const& spec, http::request const& req, http::response const& res) const;
  FLOE_DECL void reply_error(request_spec const& spec, http::request const& req, http::response const& res,
                             credentials::credentials const* signer, unsigned attempts, error& out) const;
  FLOE_DECL double draw();
  FLOE_DECL request_machine::params machine_params(request_spec const& spec, http::request& req) const;
  FLOE_DECL bool prepare_send(request_machine const& m, action const& a, request_spec& spec, http::request& req,
                              credentials::credentials const* signer, error& out);
  FLOE_DECL action after_exchange(request_machine& m, request_spec& spec, http::request const& req,
                                  http::response& res, http::exchange_facts const& xf,
                                  credentials::credentials const* signer, error& out);
  FLOE_DECL void failed(request_machine const& m, action const& a, request_spec& spec, http::request const& req,
                        http::response& res, credentials::credentials const* signer, bool sink_dirty, error& out) const;
  // The deadline of this run of `spec` (none: {}), from now.
  FLOE_DECL std::chrono::steady_clock::time_point deadline_of(request_spec const& spec) const;
  // An exchange or a credentials fetch raced against the deadline: the
  // waits that may outlast it.
  FLOE_DECL boost::asio::awaitable<bool> exchange_until(std::chrono::steady_clock::time_point until, request_spec& spec,
                                                        http::request& req, http::response& res, unsigned attempt,
                                                        error& out, http::exchange_facts& xf);
  // A hedgeable attempt: the exchange raced against its hedge (or its late
  // bound) and the deadline; the first reply head wins. 0: the exchange
  // ended; 1: the hedge's head came first (its outcome moved in); 2: cut as
  // late; 3: cut by the deadline.
  FLOE_DECL bool hedge_eligible(request_spec const& spec, http::request const& req) const noexcept;
  FLOE_DECL boost::asio::awaitable<int> exchange_hedged(std::chrono::steady_clock::time_point until, request_spec& spec,
                                                        http::request& req, http::response& res, unsigned attempt,
                                                        error& out, http::exchange_facts& xf);
  FLOE_DECL boost::asio::awaitable<int> hedge_after(request_spec& spec, http::request const& req, unsigned attempt,
                                                    unsigned band, std::chrono::steady_clock::time_point t0,
                                                    detail::head_race& race);
  // The size band a hedgeable read is expected in, and the band its reply
  // was in (learning its size when it is an object's).
  FLOE_DECL unsigned band_before(request_spec const& spec, http::request const& req,
                                 std::chrono::steady_clock::time_point now) const;
  FLOE_DECL unsigned band_after(request_spec const& spec, http::request const& req, http::response const& res,
                                std::chrono::steady_clock::time_point now);
  FLOE_DECL boost::asio::awaitable<bool> fetch_until(std::chrono::steady_clock::time_point until, credentials::credentials& c,
                                                     error& why);

  http::client& http_;
  description desc_;
  std::shared_ptr<credentials::provider> provider_;
  driver_config cfg_;
  sigv4::signer signer_;
  sigv4::header_signature sig_;
  std::vector<sigv4::header_view> sign_headers_;
  std::uint64_t rng_state_;
  retry::ttfb_learner ttfb_;
  retry::size_memory sizes_;
  retry::hedge_budget hedge_budget_;
  hedge_stats hedge_stats_;
};

/// An unsigned request of a credential endpoint (IMDS, container
/// credentials, SSO's portal) through `d`, retried by the driver's rules:
/// `out` is empty when a reply is in `res`, whatever its status (the
/// endpoint's own statuses are the caller's to read); otherwise the
/// transport failure (or operation_aborted). Shares the calling coroutine's
/// cancellation state.
FLOE_DECL boost::asio::awaitable<void> send_unsigned(driver& d, http::endpoint const& ep, std::string_view operation,
                                                     http::request& req, http::response& res, error& out);

}  // namespace floe::service

#if defined(FLOE_HEADER_ONLY)
#include <floe/service/impl/driver.ipp>
#endif
