#pragma once
#include <floe/providers/imds.hpp>

#include <floe/credentials/json_credentials.hpp>

#include <boost/asio/use_awaitable.hpp>

#include <algorithm>

namespace floe::credentials {

FLOE_DECL result<std::optional<imds_config>> imds_from_environment(env_lookup const& env) {
  if (auto d = non_empty(env, "AWS_EC2_METADATA_DISABLED")) {
    std::string v = *d;
    for (auto& ch : v) ch = static_cast<char>((ch >= 'A' && ch <= 'Z') ? ch + 32 : ch);
    if (v == "true") return std::optional<imds_config>();
  }
  imds_config c;
  if (auto m = non_empty(env, "AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE")) {
    std::string v = *m;
    for (auto& ch : v) ch = static_cast<char>((ch >= 'a' && ch <= 'z') ? ch - 32 : ch);
    if (v == "IPV6") c.endpoint = "http://[fd00:ec2::254]";
    else if (v != "IPV4")
      return error(errc::invalid_argument, "AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE must be IPv4 or IPv6");
  }
  if (auto e = non_empty(env, "AWS_EC2_METADATA_SERVICE_ENDPOINT")) {
    auto u = http::parse_url(*e);
    if (!u || (u->target != "/" && !u->target.empty()))
      return error(errc::invalid_argument, "AWS_EC2_METADATA_SERVICE_ENDPOINT is not http(s)://host[:port]");
    c.endpoint = *e;
    while (!c.endpoint.empty() && c.endpoint.back() == '/') c.endpoint.pop_back();
  }
  if (auto n = non_empty(env, "AWS_METADATA_SERVICE_NUM_ATTEMPTS")) {
    // Off EC2 every attempt costs a timeout, so more than one is opt-in
    // (botocore's setting); the tries go through the driver's retry.
    unsigned v = 0;
    bool ok = n->size() <= 2 && std::all_of(n->begin(), n->end(), [](char ch) { return ch >= '0' && ch <= '9'; });
    if (ok) v = static_cast<unsigned>(std::stoul(*n));
    if (!ok || v < 1 || v > 10)
      return error(errc::invalid_argument, "AWS_METADATA_SERVICE_NUM_ATTEMPTS must be a whole number from 1 to 10, not '" +
                                               detail::printable(*n, 32) + "'");
    c.attempts = v;
  }
  return std::optional<imds_config>(std::move(c));
}

FLOE_DECL result<std::unique_ptr<imds_source>> imds_source::create(boost::asio::any_io_executor ex, imds_config cfg) {
  auto u = http::parse_url(cfg.endpoint);
  if (!u) return error(errc::invalid_argument, "IMDS endpoint does not parse: " + u.error().diag.message);
  return std::unique_ptr<imds_source>(new imds_source(std::move(ex), std::move(cfg), std::move(u->ep)));
}

FLOE_DECL imds_source::imds_source(boost::asio::any_io_executor ex, imds_config cfg, http::endpoint ep)
    : cfg_(std::move(cfg)), ep_(std::move(ep)) {
  http::client_config hc;
  hc.connect_timeout = cfg_.timeout;
  hc.idle_timeout = cfg_.timeout;
  hc.proxy = {};  // link-local: never through a proxy
  hc.retry.max_attempts = cfg_.attempts == 0 ? 1 : cfg_.attempts;
  hc.retry.base_delay = std::chrono::milliseconds(100);
  hc.body_limit = 64 * 1024;
  http_ = std::make_unique<http::client>(std::move(ex), hc);
  service::description d;
  d.id = "imds";
  d.proto = service::protocol::plain;
  service::driver_config dc;
  dc.retry = hc.retry;
  driver_ = std::make_unique<service::driver>(*http_, d, nullptr, std::move(dc));
}

FLOE_DECL std::string imds_source::describe() const {
  return "instance metadata (IMDSv2 at " + detail::printable(cfg_.endpoint, 256) +
         (role_.empty() ? std::string() : ", role " + detail::printable(role_)) + ")";
}

FLOE_DECL boost::asio::awaitable<result<http::response>> imds_source::send(std::string method, std::string target,
                                                                 bool with_token) {
  namespace asio = boost::asio;
  http::request req;
  req.method = std::move(method);
  req.target = std::move(target);
  req.operation = "IMDS";
  req.traits.idempotent = true;
  req.headers.set("Host", ep_.host_header());
  if (with_token) req.headers.set("X-aws-ec2-metadata-token", token_);
  else req.headers.set("X-aws-ec2-metadata-token-ttl-seconds", std::to_string(cfg_.token_ttl.count()));
  http::response res;
  error sent;
  co_await service::send_unsigned(*driver_, ep_, req.operation, req, res, sent);
  if (sent.code) {
    // The HTTP layer's message can be only "not retried: ..."; say what
    // happened first (a silent metadata service: "timed out after 1000 ms").
    sent.diag.message = describe() + ": " + req.method + " " + req.target + " " + sent.code.message() +
                        (sent.code == make_error_code(errc::timeout)
                             ? " after " + std::to_string(cfg_.timeout.count()) + " ms"
                             : std::string()) +
                        (sent.diag.message.empty() ? std::string() : " (" + sent.diag.message + ")");
    co_return sent;
  }
  co_return res;
}

FLOE_DECL boost::asio::awaitable<result<credentials>> imds_source::fetch() {
  std::string const base = "/latest/meta-data/iam/security-credentials/";
  bool token_refetched = false;
  bool role_refetched = false;
  auto fail = [this](unsigned status, std::string why) {
    error e(errc::credentials_unavailable, describe() + ": " + why);
    e.diag.http_status = status;
    return e;
  };
  for (int round = 0; round < 4; ++round) {
    if (token_.empty()) {
      ++stats_.token_requests;
      std::string const m = "PUT", t = "/latest/api/token";
      auto r = co_await send(m, t, false);
      if (!r) co_return r.error();
      if (r->status != 200 || r->body.empty())
        co_return fail(r->status, "the session token request (PUT /latest/api/token) got HTTP " + std::to_string(r->status));
      token_ = std::move(r->body);
      while (!token_.empty() && (token_.back() == '\n' || token_.back() == '\r')) token_.pop_back();
    }
    if (role_.empty()) {
      ++stats_.role_requests;
      std::string const m = "GET";
      auto r = co_await send(m, base, true);
      if (!r) co_return r.error();
      if (r->status == 401 && !token_refetched) {
        token_refetched = true;
        ++stats_.stale_tokens;
        token_.clear();
        continue;
      }
      if (r->status == 404) co_return fail(404, "no IAM role is attached to this instance");
      if (r->status != 200) co_return fail(r->status, "the role listing got HTTP " + std::to_string(r->status));
      auto nl = r->body.find_first_of("\r\n");
      role_ = r->body.substr(0, nl);
      if (role_.empty()) co_return fail(200, "the role listing is empty");
      if (role_.find_first_of("/?#% ") != std::string::npos) {
        role_.clear();
        co_return fail(200, "the role listing names an unusable role");
      }
    }
    ++stats_.credential_requests;
    std::string const m = "GET";
    std::string const target = base + role_;
    auto r = co_await send(m, target, true);
    if (!r) co_return r.error();
    if (r->status == 401 && !token_refetched) {
      token_refetched = true;
      ++stats_.stale_tokens;
      token_.clear();
      continue;
    }
    if (r->status == 404 && !role_refetched) {
      role_refetched = true;
      role_.clear();
      continue;
    }
    if (r->status != 200) co_return fail(r->status, "the credentials request got HTTP " + std::to_string(r->status));
    std::string const what = describe();
    auto c = parse_json_credentials(r->body, json_credentials_kind::imds, what);
    std::fill(r->body.begin(), r->body.end(), '\0');
    if (!c) co_return c.error();
    c->source = what;
    co_return c;
  }
  co_return fail(0, "no credentials after a new session token and a new role lookup");
}

}  // namespace floe::credentials
