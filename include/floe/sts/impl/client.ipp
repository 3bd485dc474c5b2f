#pragma once
#include <floe/sts/client.hpp>

#include <floe/detail/sha256.hpp>
#include <floe/errors/reply_error.hpp>
#include <floe/retry/clock_skew.hpp>
#include <floe/retry/policy.hpp>

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <array>
#include <random>

namespace floe::sts {

FLOE_DECL result<std::unique_ptr<client>> client::create(executor_type ex, client_config cfg) {
  auto env = cfg.env ? cfg.env : credentials::process_environment();
  auto ep = resolve_endpoint(cfg.endpoint, env);
  if (!ep) return ep.error();
  auto url = http::parse_url(ep->url);
  if (!url) return url.error();
  return std::unique_ptr<client>(new client(std::move(ex), std::move(cfg), std::move(*ep), std::move(url->ep)));
}

FLOE_DECL client::client(executor_type ex, client_config cfg, endpoint_config ep, http::endpoint hep)
    : cfg_(std::move(cfg)),
      endpoint_(std::move(ep)),
      http_endpoint_(std::move(hep)),
      http_(std::move(ex), cfg_.http),
      rng_state_(std::random_device{}()) {}

FLOE_DECL client::~client() = default;

FLOE_DECL double client::draw() {
  if (cfg_.random) return cfg_.random();
  // splitmix64: private to this client, so no locking.
  std::uint64_t z = (rng_state_ += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) / 9007199254740992.0;
}

FLOE_DECL boost::asio::awaitable<result<std::string>> client::call(std::string_view operation, std::string const& resource,
                                                                   body_builder const& build,
                                                                   credentials::credentials const* signer) {
  namespace asio = boost::asio;
  ++stats_.operations;
  // The standard retry rule (attempt bound, this client's own quota, back-off,
  // refund on success) drives the tries below; each try's HTTP exchange has
  // its own, which never resends these replies (see classify).
  retry::standard_params bp = cfg_.http.retry;
  bp.base_delay = cfg_.retry_base;
  bp.max_backoff = cfg_.retry_cap;
  bp.max_attempts = cfg_.max_attempts == 0 ? 1 : cfg_.max_attempts;
  retry::operation tries(bp, http_.quota());
  std::string const host_header = http_endpoint_.host_header();
  for (;;) {
    unsigned const attempt = tries.attempt();
    auto body = build();
    if (!body) {
      auto e = body.error();
      if (e.diag.operation.empty()) e.diag.operation = std::string(operation);
      co_return e;
    }
    ++stats_.tries;
    std::string const payload_hash = [&] {
      auto d = floe::detail::sha256::of(*body);
      std::string out(64, '0');
      floe::detail::hex_lower(d, out.data());
      return out;
    }();
    http::request req;
    req.method = "POST";
    req.target = "/";
    req.operation = std::string(operation);
    req.headers.set("Host", host_header);
    req.headers.set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8");
    req.body = http::body_source::memory(*body);
    req.traits.idempotent = true;  // issuing credentials twice is harmless
    if (signer) {
      req.sign = [&](http::request& r, http::attempt_info const& ai) -> error {
        std::array<sigv4::header_view, 2> h{{{"content-type", r.headers.get("Content-Type")}, {"host", host_header}}};
        sigv4::request_view v;
        v.method = r.method;
        v.path = "/";
        v.headers = h;
        v.payload_hash = payload_hash;
        sigv4::credentials_view cv{signer->access_key_id, signer->secret_access_key.reveal(),
                                   signer->session_token.reveal()};
        auto ok = signer_.sign_headers(v, cv, sigv4::signing_params::generic(endpoint_.signing_region, "sts"),
                                       now() + ai.clock_skew, sig_);
        if (!ok) return ok.error();
        sig_.for_each_header([&r](std::string_view n, std::string_view val) { r.headers.set(n, val); });
        return {};
      };
    }
    auto facts_of = [&](http::response const& rs) {
      errors::reply_facts f;
      f.status = rs.status;
      f.method = "POST";
      f.is_credential_fetch = true;
      f.clock_skew = retry::skew_from_date(rs.headers.get("Date"), now());
      return f;
    };
    req.classify = [&](http::request const&, http::response const& rs) -> errors::kind {
      if (rs.status / 100 == 2) return errors::kind::success;
      auto const r = errors::describe_reply(facts_of(rs), rs.body, {});
      // IDPCommunicationError, InvalidIdentityToken and throttling are tried
      // again below, with the request built again (the token read again
      // from its file), not resent as they are by the HTTP layer.
      if (r.body && is_retryable_sts_code(r.body->code)) return errors::kind::client_error;
      return r.what.outcome;
    };
    http::response res;
    error sent = co_await http_.async_send(http_endpoint_, req, res, asio::use_awaitable);
    if (sent.code) {
      if (sent.diag.operation.empty()) sent.diag.operation = std::string(operation);
      if (sent.diag.resource.empty()) sent.diag.resource = resource;
      co_return sent;
    }
    if (res.status / 100 == 2) {
      // A retry that ended well refunds its cost (the first try's success
      // was counted by the HTTP layer already).
      if (attempt > 1) (void)tries.on_outcome(req.traits, retry::attempt_outcome{}, 0.0);
      co_return std::move(res.body);
    }
    errors::reply_ids ids;
    ids.request_id = res.headers.get("x-amzn-RequestId");
    ids.operation = operation;
    ids.resource = resource;
    ids.attempt = attempt;
    auto report = errors::describe_reply(facts_of(res), res.body, ids);
    if (!report.err.code) report.err.code = errc::service_error;
    if (!report.body || !is_retryable_sts_code(report.body->code)) co_return std::move(report.err);
    retry::attempt_outcome o;
    o.kind = errors::kind::throttled;  // a retryable reply, whichever of the codes
    auto const d = tries.on_outcome(req.traits, o, draw());
    if (d.what != retry::action::retry) {
      if (d.reason == errc::retry_quota_exhausted) {
        report.err.diag.message += report.err.diag.message.empty() ? "" : "; ";
        report.err.diag.message += "not retried: the STS client's retry quota is exhausted";
      }
      co_return std::move(report.err);
    }
    asio::steady_timer t(http_.get_executor());
    t.expires_after(d.delay);
    co_await t.async_wait(asio::use_awaitable);
  }
}

FLOE_DECL boost::asio::awaitable<result<assumed_role>> client::run_web_identity(web_identity_request r,
                                                                                token_source t) {
  body_builder build = [this, &r, &t]() -> result<std::string> {
    if (t) {
      ++stats_.token_reads;
      auto tok = t();
      if (!tok) return tok.error();
      r.web_identity_token = std::move(*tok);
    }
    return web_identity_body(r);
  };
  std::string const resource = r.role_arn;
  auto body = co_await call("AssumeRoleWithWebIdentity", resource, build, nullptr);
  if (!body) co_return body.error();
  auto parsed = parse_assume_role_reply(*body);
  if (!parsed) {
    auto e = parsed.error();
    e.diag.operation = "AssumeRoleWithWebIdentity";
    e.diag.resource = r.role_arn;
    co_return e;
  }
  co_return std::move(*parsed);
}

FLOE_DECL boost::asio::awaitable<result<assumed_role>> client::run_assume_role(assume_role_request r,
                                                                               credentials::credentials c) {
  body_builder build = [&r]() { return assume_role_body(r); };
  std::string const resource = r.role_arn;
  auto body = co_await call("AssumeRole", resource, build, &c);
  if (!body) co_return body.error();
  auto parsed = parse_assume_role_reply(*body);
  if (!parsed) {
    auto e = parsed.error();
    e.diag.operation = "AssumeRole";
    e.diag.resource = r.role_arn;
    co_return e;
  }
  co_return std::move(*parsed);
}

FLOE_DECL boost::asio::awaitable<result<caller_identity>> client::run_caller_identity(credentials::credentials c) {
  body_builder build = []() -> result<std::string> { return caller_identity_body(); };
  std::string const resource;
  auto body = co_await call("GetCallerIdentity", resource, build, &c);
  if (!body) co_return body.error();
  co_return parse_caller_identity_reply(*body);
}

}  // namespace floe::sts
