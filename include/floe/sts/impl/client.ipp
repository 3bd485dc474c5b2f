#pragma once
#include <floe/sts/client.hpp>

#include <floe/detail/sha256.hpp>

namespace floe::sts {

FLOE_DECL result<std::unique_ptr<client>> client::create(executor_type ex, client_config cfg) {
  auto env = cfg.env ? cfg.env : credentials::process_environment();
  auto ep = cfg.shared ? resolve_endpoint(cfg.endpoint, cfg.shared->resolver, cfg.shared->region, cfg.shared->region_source)
                       : resolve_endpoint(cfg.endpoint, env);
  if (!ep) return ep.error();
  auto url = http::parse_url(ep->url);
  if (!url) return url.error();
  // Without a shared configuration, the environment lookup is the one for
  // AWS_CA_BUNDLE and, when the caller set no proxy, the proxy variables.
  auto& px = cfg.http.proxy;
  if (!cfg.shared && px.http_proxy.empty() && px.https_proxy.empty() && px.no_proxy.empty())
    px = http::proxy_config::from_env(env);
  if (!cfg.http.tls.env) cfg.http.tls.env = env;
  return std::unique_ptr<client>(new client(std::move(ex), std::move(cfg), std::move(*ep), std::move(url->ep)));
}

FLOE_DECL result<std::unique_ptr<client>> client::create(executor_type ex, session const& s, client_config cfg) {
  auto ep = resolve_endpoint(cfg.endpoint, s.endpoints(), s.region(), s.region_source());
  if (!ep) return ep.error();
  auto url = http::parse_url(ep->url);
  if (!url) return url.error();
  cfg.env = s.env();
  cfg.http = s.http();
  cfg.credentials = s.credentials();
  return std::unique_ptr<client>(new client(std::move(ex), std::move(cfg), std::move(*ep), std::move(url->ep)));
}

namespace detail {

// STS's part of a request: its body, built again for every try (the web
// identity token is read again from its file), and the payload hash signed
// with it.
struct sts_request final : service::request_hooks {
  std::function<result<std::string>()> const* build = nullptr;
  std::uint64_t* tries = nullptr;
  std::string body;
  std::string payload_hash;

  error rebuild(service::request_spec& spec, http::request& req) {
    auto b = (*build)();
    if (!b) return std::move(b.error());
    ++*tries;
    body = std::move(*b);
    auto d = floe::detail::sha256::of(body);
    payload_hash.assign(64, '0');
    floe::detail::hex_lower(d, payload_hash.data());
    spec.payload_hash = payload_hash;
    req.body = http::body_source::memory(body);
    return {};
  }
  error before_resend(service::request_spec& spec, http::request& req) override { return rebuild(spec, req); }
};

}  // namespace detail

FLOE_DECL service::description client::service_description() noexcept {
  service::description d;
  d.id = "sts";
  d.signing_name = "sts";
  d.proto = service::protocol::query;
  d.retryable_code = &is_retryable_sts_code;
  return d;
}

FLOE_DECL client::client(executor_type ex, client_config cfg, endpoint_config ep, http::endpoint hep)
    : cfg_(std::move(cfg)),
      endpoint_(std::move(ep)),
      http_endpoint_(std::move(hep)),
      http_(std::move(ex), cfg_.http),
      driver_(http_, service_description(), cfg_.credentials, [this] {
        service::driver_config dc;
        dc.retry = cfg_.http.retry;
        dc.retry.base_delay = cfg_.retry_base;
        dc.retry.max_backoff = cfg_.retry_cap;
        dc.retry.max_attempts = cfg_.max_attempts == 0 ? 1 : cfg_.max_attempts;
        dc.clock = cfg_.clock;
        dc.random = cfg_.random;
        return dc;
      }()) {}

FLOE_DECL client::~client() = default;

FLOE_DECL boost::asio::awaitable<result<std::string>> client::call(std::string_view operation, std::string const& resource,
                                                                   body_builder const& build, bool signs,
                                                                   credentials::credentials const* signer,
                                                                   bool credential_fetch) {
  ++stats_.operations;
  std::string const host_header = http_endpoint_.host_header();
  http::request req;
  req.method = "POST";
  req.target = "/";
  req.headers.set("Host", host_header);
  req.headers.set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8");
  req.traits.idempotent = true;  // issuing credentials twice is harmless
  service::request_spec spec;
  spec.operation = operation;
  spec.resource = resource;
  spec.ep = &http_endpoint_;
  spec.region = endpoint_.signing_region;
  spec.path = "/";
  spec.signs = signs;
  spec.fixed = signer;
  spec.credential_fetch = credential_fetch;
  detail::sts_request hooks;
  hooks.build = &build;
  hooks.tries = &stats_.tries;
  spec.hooks = &hooks;
  if (auto e = hooks.rebuild(spec, req); e.code) {
    if (e.diag.operation.empty()) e.diag.operation = std::string(operation);
    co_return e;
  }
  http::response res;
  error e;
  co_await driver_.run(spec, req, res, e);
  if (e.code) co_return e;
  co_return std::move(res.body);
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
  auto body = co_await call("AssumeRoleWithWebIdentity", resource, build, false, nullptr, true);
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
  auto body = co_await call("AssumeRole", resource, build, true, &c, true);
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

FLOE_DECL boost::asio::awaitable<result<caller_identity>> client::run_caller_identity(credentials::credentials c,
                                                                                     bool given) {
  body_builder build = []() -> result<std::string> { return caller_identity_body(); };
  std::string const resource;
  auto body = co_await call("GetCallerIdentity", resource, build, true, given ? &c : nullptr, false);
  if (!body) co_return body.error();
  co_return parse_caller_identity_reply(*body);
}

}  // namespace floe::sts
