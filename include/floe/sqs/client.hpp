#pragma once
// sqs::client: every SQS operation over the JSON protocol, sent through the
// one request driver every service shares (service/), made from a shared
// configuration (session/): the session's SQS endpoint, region,
// credentials provider (one refreshing cache for every client made from
// it), TLS and proxy settings.
//
//   auto s = floe::make_session(ex, {});                  // providers/default_session.hpp, or one the process has
//   auto q = floe::sqs::client::create(ex, **s, {});      // result<std::unique_ptr<client>>
//   auto url = co_await (*q)->async_queue_url(ref);       // result<std::string>
//   sqs::receive_message_params p;
//   p.queue_url = *url; p.max_messages = 10; p.wait = std::chrono::seconds(20);
//   auto got = co_await (*q)->async_call(p);              // result<receive_message_result>
//
// Every operation of sqs/queues.hpp, sqs/messages.hpp and sqs/batches.hpp
// goes through `async_call(params)`, which checks the parameters and builds
// the request body (build_request), sends it, and reads the reply
// (parse_reply): a send's MD5OfMessageBody is checked against the body
// (errc::checksum_mismatch), a received message whose body fails its MD5
// is in `rejected`, never in `messages`, and a batch reports every entry
// as done or failed.
//
// What the driver does for every request (docs/design.md has the whole
// path): signing per attempt, the standard retry (throttling codes such as
// ThrottlingException and RequestThrottled, 5xx, transport failures),
// clock-skew correction, and one heal after stale credentials
// (InvalidClientTokenId, UnrecognizedClientException, ExpiredToken; for a
// refreshable provider also AccessDenied and a bodiless 403): the set that
// signed is invalidated and the request sent once more with a fresh one.
// SQS operations are retried as the AWS SDKs retry them (SQS is
// at-least-once: a retried SendMessage whose first reply was lost may
// store the message twice).
//
// Errors: the parameters' (errc::invalid_argument naming the field); the
// reply classified (docs/design.md's table): QueueDoesNotExist (legacy
// code AWS.SimpleQueueService.NonExistentQueue) is errc::not_found,
// ReceiptHandleIsInvalid errc::invalid_receipt_handle, AccessDenied
// errc::denied, ...; transport errors; errc::malformed_reply,
// errc::reply_too_large; errc::checksum_mismatch. The diagnostics name the
// operation, the queue (its name), status, code, message and request id.
//
// Long polls: the idle read timeout of a ReceiveMessage attempt is its
// wait (20 s when it leaves the wait to the queue) plus the configured
// read timeout, so an empty long poll is never cut (sqs/queue.hpp).
//
// Cancellation: terminal, through the token's cancellation slot: the
// attempt in flight is aborted at once (a receive waiting on the server
// too) and completes with asio::error::operation_aborted. Only that
// attempt's connection is closed; the client and its other connections
// stay usable.
//
// Threading: a client runs on its executor: every operation runs there,
// whatever the token (service/detail/launch.hpp; with use_awaitable from a
// coroutine already on that executor, inline in it). On an io_context run
// by several threads give the client a strand; start operations from any
// thread or coroutine. Several operations may be in flight at once.
//
// Lifetimes: the client must outlive the operations it started. It keeps
// what it uses of the session (the provider, by shared pointer), so the
// session may go first. Params are taken by value.
//
// GCC 12: bind params to named variables before a co_await expression
// (never `co_await c.async_call(send_message_params{...})`).

#include <floe/config.hpp>
#include <floe/http/client.hpp>
#include <floe/result.hpp>
#include <floe/service/detail/launch.hpp>
#include <floe/session/session.hpp>
#include <floe/sqs/batches.hpp>
#include <floe/sqs/detail/call_facts.hpp>
#include <floe/sqs/messages.hpp>
#include <floe/sqs/queue.hpp>
#include <floe/sqs/queues.hpp>
#include <floe/sqs/request.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/deferred.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

namespace floe::sqs {

struct client_options {
  /// The SQS endpoint, e.g. "http://127.0.0.1:4566"; empty: the session's
  /// resolver for service id "sqs" (AWS_ENDPOINT_URL_SQS, AWS_ENDPOINT_URL,
  /// the profile, else https://sqs.REGION.amazonaws.com[.cn]).
  std::string endpoint_url{};
  /// The region to sign for; empty: the endpoint's signing region (the
  /// session's region).
  std::string region{};
  /// How long an attempt may go without a byte moving, beyond a long
  /// poll's wait; zero: the session's HTTP idle timeout.
  std::chrono::milliseconds read_timeout{0};
};

class client {
 public:
  using executor_type = boost::asio::any_io_executor;

  struct statistics {
    std::uint64_t operations = 0;         // async_call and async_queue_url calls
    std::uint64_t queue_url_lookups = 0;  // GetQueueUrl requests made by async_queue_url
  };

  /// A client on `ex` from `s`. Errors: errc::invalid_argument (an
  /// endpoint URL that does not parse, no region where one is needed).
  FLOE_DECL static result<std::unique_ptr<client>> create(executor_type ex, session const& s, client_options opts = {});

  FLOE_DECL ~client();
  client(client const&) = delete;
  client& operator=(client const&) = delete;

  executor_type get_executor() const noexcept { return ex_; }
  /// The endpoint requests go to ("http://127.0.0.1:4566"), and where it
  /// came from ("client_options", "AWS_ENDPOINT_URL_SQS", "default", ...).
  FLOE_DECL std::string const& endpoint() const noexcept;
  FLOE_DECL std::string const& endpoint_source() const noexcept;
  FLOE_DECL statistics const& stats() const noexcept;

  /// Any SQS operation: `Params` is one of the *_params structs of
  /// sqs/queues.hpp, sqs/messages.hpp, sqs/batches.hpp. Completes with
  /// `void(result<typename Params::result_type>)`.
  template <class Params, class Token = boost::asio::deferred_t>
  auto async_call(Params p, Token&& token = {}) {
    using R = result<typename Params::result_type>;
    return service::detail::start<R>(ex_, [this, p = std::move(p)]() mutable { return run_call(std::move(p)); },
                            std::forward<Token>(token));
  }

  /// The URL of a queue: as given when `queue` is a URL; else looked up
  /// with GetQueueUrl the first time and remembered for the life of the
  /// client (two lookups of one name running at once may both be sent; the
  /// answer is the same). Completes with `void(result<std::string>)`.
  /// Errors: errc::not_found when the queue does not exist, and as
  /// async_call.
  template <class Token = boost::asio::deferred_t>
  auto async_queue_url(queue_ref queue, Token&& token = {}) {
    return service::detail::start<result<std::string>>(
        ex_, [this, q = std::move(queue)]() mutable { return run_queue_url(std::move(q)); },
        std::forward<Token>(token));
  }

  /// Warm-up (http::client::async_warm_up on this client's connections):
  /// opens connections to the endpoint (TLS done) until `n` idle ones
  /// wait there, so the first requests find them. Completes with the first
  /// failure or none. Needs no credentials.
  template <class Token = boost::asio::deferred_t>
  auto async_warm_up(std::size_t n, Token&& token = {}) {
    return warm_up_http().async_warm_up(warm_up_endpoint(), n, std::forward<Token>(token));
  }

  // Named forms of the common operations (async_call underneath).

  template <class Token = boost::asio::deferred_t>
  auto async_send_message(send_message_params p, Token&& token = {}) {
    return async_call(std::move(p), std::forward<Token>(token));
  }
  template <class Token = boost::asio::deferred_t>
  auto async_send_message_batch(send_message_batch_params p, Token&& token = {}) {
    return async_call(std::move(p), std::forward<Token>(token));
  }
  template <class Token = boost::asio::deferred_t>
  auto async_receive_message(receive_message_params p, Token&& token = {}) {
    return async_call(std::move(p), std::forward<Token>(token));
  }
  template <class Token = boost::asio::deferred_t>
  auto async_delete_message(delete_message_params p, Token&& token = {}) {
    return async_call(std::move(p), std::forward<Token>(token));
  }
  template <class Token = boost::asio::deferred_t>
  auto async_delete_message_batch(delete_message_batch_params p, Token&& token = {}) {
    return async_call(std::move(p), std::forward<Token>(token));
  }
  template <class Token = boost::asio::deferred_t>
  auto async_change_message_visibility(change_message_visibility_params p, Token&& token = {}) {
    return async_call(std::move(p), std::forward<Token>(token));
  }

 private:
  struct impl;
  FLOE_DECL client(executor_type ex, std::unique_ptr<impl> state);

  /// Sends one built request through the driver; the 2xx reply's body.
  /// `req` and `resource` must outlive the call (references, so that no
  /// class-type temporary lives across a co_await: GCC 12, above).
  FLOE_DECL boost::asio::awaitable<result<std::string>> exchange(request const& req, std::string_view resource,
                                                                 std::chrono::milliseconds read_timeout);
  FLOE_DECL std::chrono::milliseconds configured_read_timeout() const noexcept;
  FLOE_DECL void count_operation() noexcept;
  // The http::client and the endpoint every request goes to.
  FLOE_DECL http::client& warm_up_http() noexcept;
  FLOE_DECL http::endpoint const& warm_up_endpoint() const noexcept;
  FLOE_DECL boost::asio::awaitable<result<std::string>> run_queue_url(queue_ref q);

  template <class Params>
  boost::asio::awaitable<result<typename Params::result_type>> run_call(Params p) {
    count_operation();
    auto req = build_request(p);
    if (!req) co_return req.error();
    std::string const resource = detail::resource_of(p);
    auto body = co_await exchange(*req, resource, detail::read_timeout_for(p, configured_read_timeout()));
    if (!body) co_return body.error();
    co_return parse_reply(p, *body);
  }

  executor_type ex_;
  std::unique_ptr<impl> impl_;
};

}  // namespace floe::sqs

#if defined(FLOE_HEADER_ONLY)
#include <floe/sqs/impl/client.ipp>
#endif
