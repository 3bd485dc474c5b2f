#pragma once
#include <floe/providers/container.hpp>

#include <floe/credentials/json_credentials.hpp>
#include <floe/providers/web_identity.hpp>

#include <boost/asio/ip/address.hpp>
#include <algorithm>
#include <boost/asio/use_awaitable.hpp>

namespace floe::credentials {

FLOE_DECL result<void> check_container_url(std::string_view url) {
  auto u = http::parse_url(url);
  if (!u) return error(errc::invalid_argument, "container credentials URL does not parse: " + u.error().diag.message);
  if (u->ep.tls) return {};
  std::string const& h = u->ep.host;
  if (h == "localhost" || h == "169.254.170.2" || h == "169.254.170.23") return {};
  boost::system::error_code ec;
  auto a = boost::asio::ip::make_address(h, ec);
  if (!ec) {
    if (a.is_loopback()) return {};
    if (a.is_v6() && a == boost::asio::ip::make_address("fd00:ec2::23")) return {};
  }
  return error(errc::invalid_argument, "container credentials URL uses plain http to " + detail::printable(h) +
                                           ": only loopback, 169.254.170.2, 169.254.170.23 and fd00:ec2::23 may be "
                                           "reached without TLS");
}

FLOE_DECL result<std::optional<container_config>> container_from_environment(env_lookup const& env) {
  container_config c;
  if (auto rel = non_empty(env, "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI")) {
    std::string path = *rel;
    if (path.front() != '/') path.insert(path.begin(), '/');
    c.url = "http://169.254.170.2" + path;
    c.url_source = "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI";
  } else if (auto full = non_empty(env, "AWS_CONTAINER_CREDENTIALS_FULL_URI")) {
    if (auto ok = check_container_url(*full); !ok) {
      auto e = ok.error();
      e.diag.message = "AWS_CONTAINER_CREDENTIALS_FULL_URI: " + e.diag.message;
      return e;
    }
    c.url = *full;
    c.url_source = "AWS_CONTAINER_CREDENTIALS_FULL_URI";
  } else {
    return std::optional<container_config>();
  }
  if (auto f = non_empty(env, "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE")) c.token_file = *f;
  else if (auto t = non_empty(env, "AWS_CONTAINER_AUTHORIZATION_TOKEN")) c.token = *t;
  return std::optional<container_config>(std::move(c));
}

FLOE_DECL result<std::unique_ptr<container_source>> container_source::create(boost::asio::any_io_executor ex,
                                                                            container_config cfg) {
  auto u = http::parse_url(cfg.url);
  if (!u) return error(errc::invalid_argument, "container credentials URL does not parse: " + u.error().diag.message);
  return std::unique_ptr<container_source>(
      new container_source(std::move(ex), std::move(cfg), std::move(u->ep), std::move(u->target)));
}

FLOE_DECL container_source::container_source(boost::asio::any_io_executor ex, container_config cfg, http::endpoint ep,
                                             std::string target)
    : cfg_(std::move(cfg)), ep_(std::move(ep)), target_(std::move(target)) {
  http::client_config hc;
  hc.connect_timeout = cfg_.timeout;
  hc.idle_timeout = cfg_.timeout;
  hc.proxy = {};  // never through a proxy: the endpoint is local to the task
  hc.retry.max_attempts = 2;
  hc.retry.base_delay = std::chrono::milliseconds(100);
  hc.body_limit = 64 * 1024;
  http_ = std::make_unique<http::client>(std::move(ex), hc);
  service::description d;
  d.id = "container";
  d.proto = service::protocol::plain;
  service::driver_config dc;
  dc.retry = hc.retry;
  driver_ = std::make_unique<service::driver>(*http_, d, nullptr, std::move(dc));
}

FLOE_DECL std::string container_source::describe() const {
  auto u = http::parse_url(cfg_.url);
  std::string where = u ? (std::string(u->ep.tls ? "https://" : "http://") + u->ep.host_header() + u->target) : cfg_.url;
  return "container credentials (" + detail::printable(where, 256) + ", from " + cfg_.url_source + ")";
}

FLOE_DECL boost::asio::awaitable<result<credentials>> container_source::fetch() {
  namespace asio = boost::asio;
  http::request req;
  req.method = "GET";
  req.target = target_;
  req.operation = "container credentials";
  req.traits.idempotent = true;
  req.headers.set("Host", ep_.host_header());
  req.headers.set("Accept", "application/json");
  if (!cfg_.token_file.empty()) {
    auto t = read_token_file(cfg_.token_file);
    if (!t) {
      auto e = t.error();
      e.diag.message = "container authorization " + e.diag.message;
      co_return e;
    }
    if (t->find_first_of("\r\n") != std::string::npos)
      co_return error(errc::invalid_argument, "container authorization token file " +
                                                  detail::printable(cfg_.token_file, 256) + " holds a line break");
    req.headers.set("Authorization", *t);
  } else if (!cfg_.token.empty()) {
    if (cfg_.token.find_first_of("\r\n") != std::string::npos)
      co_return error(errc::invalid_argument, "AWS_CONTAINER_AUTHORIZATION_TOKEN holds a line break");
    req.headers.set("Authorization", cfg_.token);
  }
  http::response res;
  error sent;
  co_await service::send_unsigned(*driver_, ep_, req.operation, req, res, sent);
  std::string const what = describe();
  if (sent.code) {
    sent.diag.message = what + ": " + sent.code.message() +
                        (sent.diag.message.empty() ? std::string() : " (" + sent.diag.message + ")");
    co_return sent;
  }
  if (res.status != 200) {
    error e(errc::credentials_unavailable, what + ": HTTP " + std::to_string(res.status) +
                                               (res.status == 401 || res.status == 403 ? " (the authorization token was refused)" : ""));
    e.diag.http_status = res.status;
    co_return e;
  }
  auto c = parse_json_credentials(res.body, json_credentials_kind::container, what);
  std::fill(res.body.begin(), res.body.end(), '\0');
  if (!c) co_return c.error();
  c->source = what;
  co_return c;
}

}  // namespace floe::credentials
