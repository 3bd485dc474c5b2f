#pragma once
#include <floe/sqs/client.hpp>

#include <floe/detail/sha256.hpp>
#include <floe/http/client.hpp>
#include <floe/service/driver.hpp>
#include <floe/session/session.hpp>

#include <map>

// GCC 12 misreads the sized operator delete of Asio's coroutine frames.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

namespace floe::sqs {

namespace detail {

// SQS for the driver: the JSON protocol, signed as "sqs". Its throttling
// codes (ThrottlingException, RequestThrottled, KmsThrottled) are the
// classifier's own, so it names no codes of its own.
inline constexpr service::description sqs_service{
    .id = "sqs",
    .signing_name = signing_name,
    .proto = service::protocol::json,
};

inline std::string sha256_hex(std::string_view body) {
  auto d = floe::detail::sha256::of(body);
  std::string out(64, '0');
  floe::detail::hex_lower(d, out.data());
  return out;
}

}  // namespace detail

struct client::impl {
  impl(executor_type ex, http::client_config hc, std::shared_ptr<credentials::provider> provider,
       service::driver_config dc)
      : http(ex, std::move(hc)), driver(http, detail::sqs_service, std::move(provider), std::move(dc)) {}

  http::client http;
  service::driver driver;
  http::endpoint ep;
  std::string host_header;
  std::string path;  // "/", or a custom endpoint's base path
  std::string endpoint_url, endpoint_source, region;
  std::chrono::milliseconds read_timeout{0};
  std::map<std::string, std::string, std::less<>> queue_urls;  // name -> URL, as GetQueueUrl answered
  statistics stats;
};

FLOE_DECL client::client(executor_type ex, std::unique_ptr<impl> state) : ex_(std::move(ex)), impl_(std::move(state)) {}

FLOE_DECL client::~client() = default;

FLOE_DECL std::string const& client::endpoint() const noexcept { return impl_->endpoint_url; }
FLOE_DECL std::string const& client::endpoint_source() const noexcept { return impl_->endpoint_source; }
FLOE_DECL client::statistics const& client::stats() const noexcept { return impl_->stats; }
FLOE_DECL std::chrono::milliseconds client::configured_read_timeout() const noexcept { return impl_->read_timeout; }
FLOE_DECL void client::count_operation() noexcept { ++impl_->stats.operations; }
FLOE_DECL http::client& client::warm_up_http() noexcept { return impl_->http; }
FLOE_DECL http::endpoint const& client::warm_up_endpoint() const noexcept { return impl_->ep; }

FLOE_DECL result<std::unique_ptr<client>> client::create(executor_type ex, session const& s, client_options opts) {
  auto where = s.endpoint_for(detail::sqs_service.id, opts.endpoint_url);
  if (!where) return where.error();
  auto state = std::make_unique<impl>(ex, s.http(), s.credentials(), service::driver_config{s.http().retry, {}, {}});
  state->ep = where->ep;
  state->host_header = state->ep.host_header();
  state->path = where->base_path.empty() ? std::string(request_path) : where->base_path;
  state->endpoint_url = std::string(where->ep.tls ? "https://" : "http://") + state->host_header + where->base_path;
  state->endpoint_source = opts.endpoint_url.empty() ? where->source : std::string("client_options");
  state->region = opts.region.empty() ? where->signing_region : opts.region;
  if (state->region.empty())
    return error(errc::invalid_argument, "SQS: no region to sign for (set AWS_REGION, the profile's region, or "
                                         "client_options::region)");
  state->read_timeout = opts.read_timeout.count() != 0 ? opts.read_timeout : state->http.config().idle_timeout;
  return std::unique_ptr<client>(new client(std::move(ex), std::move(state)));
}

FLOE_DECL boost::asio::awaitable<result<std::string>> client::exchange(request const& r, std::string_view resource,
                                                                       std::chrono::milliseconds read_timeout) {
  auto& st = *impl_;
  std::string const payload_hash = detail::sha256_hex(r.body);
  http::request req;
  req.method = std::string(request_method);
  req.target = st.path;
  req.operation = std::string(r.operation);
  req.headers.set("Host", st.host_header);
  req.headers.set("Content-Type", json_content_type);
  req.headers.set("X-Amz-Target", r.target);
  req.body = http::body_source::memory(r.body);
  // Retried as the AWS SDKs retry SQS: at-least-once delivery makes a
  // resent SendMessage a possible duplicate, never a loss.
  req.traits.idempotent = true;
  req.idle_timeout = read_timeout;
  service::request_spec spec;
  spec.operation = r.operation;
  spec.resource = resource;
  spec.ep = &st.ep;
  spec.region = st.region;
  spec.path = st.path;
  spec.payload_hash = payload_hash;
  http::response res;
  error out;
  co_await st.driver.run(spec, req, res, out);
  if (out.code) co_return std::move(out);
  co_return std::move(res.body);
}

FLOE_DECL boost::asio::awaitable<result<std::string>> client::run_queue_url(queue_ref q) {
  count_operation();
  if (!q.needs_lookup()) co_return std::move(q.url);
  auto& st = *impl_;
  if (auto it = st.queue_urls.find(q.name); it != st.queue_urls.end()) co_return it->second;
  get_queue_url_params p;
  p.queue_name = q.name;
  auto req = build_request(p);
  if (!req) co_return req.error();
  ++st.stats.queue_url_lookups;
  auto body = co_await exchange(*req, q.name, configured_read_timeout());
  if (!body) co_return body.error();
  auto got = parse_reply(p, *body);
  if (!got) co_return got.error();
  st.queue_urls.insert_or_assign(q.name, got->queue_url);
  co_return std::move(got->queue_url);
}

}  // namespace floe::sqs

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
