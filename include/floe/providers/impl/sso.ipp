#pragma once
#include <floe/providers/sso.hpp>

#include <floe/credentials/shared_files.hpp>
#include <floe/sigv4/uri_encode.hpp>

#include <boost/asio/use_awaitable.hpp>

#include <openssl/evp.h>
#include <simdjson.h>

#include <algorithm>
#include <optional>
#include <cstdint>

namespace floe::credentials {

FLOE_DECL std::string sso_cache_key(std::string_view in) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned len = 0;
  EVP_Digest(in.data(), in.size(), md, &len, EVP_sha1(), nullptr);
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * len);
  for (unsigned i = 0; i < len; ++i) {
    out += hex[md[i] >> 4];
    out += hex[md[i] & 15];
  }
  return out;
}

FLOE_DECL std::string sso_token_path(sso_config const& cfg) {
  return cfg.cache_dir + "/" + sso_cache_key(cfg.session_name.empty() ? cfg.start_url : cfg.session_name) + ".json";
}

namespace detail {

inline result<simdjson::dom::object> sso_json_object(simdjson::dom::parser& parser, simdjson::padded_string const& text,
                                                     std::string const& what) {
  simdjson::dom::element doc;
  if (parser.parse(text).get(doc) != simdjson::SUCCESS) return error(errc::malformed_reply, what + ": not JSON");
  simdjson::dom::object obj;
  if (doc.get(obj) != simdjson::SUCCESS) return error(errc::malformed_reply, what + ": not a JSON object");
  return obj;
}

inline result<std::string_view> sso_string(simdjson::dom::object const& obj, char const* name, std::string const& what) {
  simdjson::dom::element e;
  std::string_view v;
  if (obj.at_key(name).get(e) != simdjson::SUCCESS || e.is_null()) return error(errc::malformed_reply, what + ": no " + name);
  if (e.get(v) != simdjson::SUCCESS) return error(errc::malformed_reply, what + ": " + name + " is not a string");
  if (v.empty()) return error(errc::malformed_reply, what + ": " + name + " is empty");
  return v;
}

}  // namespace detail

FLOE_DECL result<sso_token> parse_sso_token(std::string_view text, std::string_view what_) {
  std::string const what(what_);
  if (text.size() > 1024 * 1024) return error(errc::reply_too_large, what + ": larger than 1 MiB");
  simdjson::dom::parser parser;
  simdjson::padded_string padded(text.data(), text.size());
  auto obj = detail::sso_json_object(parser, padded, what);
  if (!obj) return obj.error();
  auto tok = detail::sso_string(*obj, "accessToken", what);
  if (!tok) return tok.error();
  auto exp = detail::sso_string(*obj, "expiresAt", what);
  if (!exp) return exp.error();
  std::string e(*exp);
  if (e.size() > 3 && e.compare(e.size() - 3, 3, "UTC") == 0) e.replace(e.size() - 3, 3, "Z");
  auto t = parse_iso8601(e);
  if (!t) return error(errc::malformed_reply, what + ": expiresAt is not an ISO 8601 time");
  if (auto ok = check_credential_field(*tok, what + ": accessToken"); !ok)
    return error(errc::malformed_reply, ok.error().diag.message);
  return sso_token{secret_string(std::string(*tok)), *t};
}

FLOE_DECL result<credentials> parse_sso_role_credentials(std::string_view text, std::string_view what_) {
  std::string const what(what_);
  if (text.size() > 64 * 1024) return error(errc::reply_too_large, what + ": the reply is larger than 64 KiB");
  simdjson::dom::parser parser;
  simdjson::padded_string padded(text.data(), text.size());
  auto obj = detail::sso_json_object(parser, padded, what);
  if (!obj) return obj.error();
  simdjson::dom::object rc;
  if ((*obj)["roleCredentials"].get(rc) != simdjson::SUCCESS)
    return error(errc::malformed_reply, what + ": no roleCredentials object");
  auto key = detail::sso_string(rc, "accessKeyId", what);
  if (!key) return key.error();
  auto secret = detail::sso_string(rc, "secretAccessKey", what);
  if (!secret) return secret.error();
  auto token = detail::sso_string(rc, "sessionToken", what);
  if (!token) return token.error();
  simdjson::dom::element ex;
  std::int64_t ms = 0;
  if (rc.at_key("expiration").get(ex) != simdjson::SUCCESS) return error(errc::malformed_reply, what + ": no expiration");
  if (ex.get(ms) != simdjson::SUCCESS || ms <= 0)
    return error(errc::malformed_reply, what + ": expiration is not a positive number of milliseconds");
  if (ms / 1000 > detail::iso8601_last.time_since_epoch().count())
    return error(errc::malformed_reply, what + ": expiration is past the year 9999");
  for (auto [v, name] : {std::pair<std::string_view, char const*>{*key, "accessKeyId"},
                         std::pair<std::string_view, char const*>{*secret, "secretAccessKey"},
                         std::pair<std::string_view, char const*>{*token, "sessionToken"}})
    if (auto ok = check_credential_field(v, what + ": " + name); !ok) return error(errc::malformed_reply, ok.error().diag.message);
  credentials c;
  c.access_key_id = std::string(*key);
  c.secret_access_key = secret_string(std::string(*secret));
  c.session_token = secret_string(std::string(*token));
  c.expiry = std::chrono::time_point_cast<std::chrono::seconds>(
      std::chrono::sys_time<std::chrono::milliseconds>(std::chrono::milliseconds(ms)));
  return c;
}

FLOE_DECL result<sso_config> sso_config_from_plan(profile_plan const& plan, env_lookup const& env,
                                                  endpoints::resolver const* endpoints) {
  std::string const who = "SSO profile '" + detail::printable(plan.base_profile) + "'";
  if (plan.base != profile_base_kind::sso) return error(errc::invalid_argument, who + ": the plan is not an SSO plan");
  sso_config c;
  c.profile = plan.base_profile;
  c.session_name = plan.sso_session;
  c.start_url = plan.sso_start_url;
  c.region = plan.sso_region;
  c.account_id = plan.sso_account_id;
  c.role_name = plan.sso_role_name;
  auto home = non_empty(env, "HOME");
  if (!home) return error(errc::invalid_argument, who + ": HOME is not set, so the SSO token cache (~/.aws/sso/cache) cannot be found");
  c.cache_dir = *home + "/.aws/sso/cache";
  std::optional<endpoints::resolver> own;
  if (endpoints == nullptr) {
    auto r = endpoints::resolver::create(env);
    if (!r) return r.error();
    own = std::move(*r);
    endpoints = &*own;
  }
  auto conf = endpoints->configured("sso");
  if (!conf) return conf.error();
  if (*conf) {
    c.endpoint = (*conf)->ep.url();
    c.endpoint_source = std::move((*conf)->source);
    return c;
  }
  bool ok = !c.region.empty() && std::all_of(c.region.begin(), c.region.end(), [](char ch) {
    return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-';
  });
  if (!ok) return error(errc::invalid_argument, who + ": sso_region '" + detail::printable(c.region) + "' is not a region name");
  auto r = endpoints->resolve("sso", c.region, {}, who + " sso_region");
  if (!r) return r.error();
  c.endpoint = r->ep.url();
  c.endpoint_source = "sso_region";
  return c;
}

FLOE_DECL result<std::unique_ptr<sso_source>> sso_source::create(boost::asio::any_io_executor ex, sso_config cfg) {
  auto u = http::parse_url(cfg.endpoint);
  if (!u) return error(errc::invalid_argument, "SSO portal endpoint does not parse: " + u.error().diag.message);
  std::string base = u->target;
  auto q = base.find('?');
  if (q != std::string::npos) base.erase(q);
  while (!base.empty() && base.back() == '/') base.pop_back();
  return std::unique_ptr<sso_source>(new sso_source(std::move(ex), std::move(cfg), std::move(u->ep), std::move(base)));
}

FLOE_DECL sso_source::sso_source(boost::asio::any_io_executor ex, sso_config cfg, http::endpoint ep,
                                 std::string base_target)
    : cfg_(std::move(cfg)), ep_(std::move(ep)), base_target_(std::move(base_target)) {
  // The session's TLS, proxy, resolve overrides and observer; the rest is SSO's.
  http::client_config hc;
  hc.tls = cfg_.http.tls;
  hc.proxy = cfg_.http.proxy;
  hc.resolve_overrides = cfg_.http.resolve_overrides;
  hc.observer = cfg_.http.observer;
  hc.connect_timeout = cfg_.timeout;
  hc.idle_timeout = cfg_.timeout;
  hc.retry.max_attempts = 2;
  hc.retry.base_delay = std::chrono::milliseconds(100);
  hc.body_limit = 64 * 1024;
  http_ = std::make_unique<http::client>(std::move(ex), hc);
  service::description d;
  d.id = "sso";
  d.proto = service::protocol::plain;
  service::driver_config dc;
  dc.retry = hc.retry;
  driver_ = std::make_unique<service::driver>(*http_, d, nullptr, std::move(dc));
}

FLOE_DECL std::string sso_source::describe() const {
  return "SSO (profile " + detail::printable(cfg_.profile) + ", account " + detail::printable(cfg_.account_id) +
         ", role " + detail::printable(cfg_.role_name) +
         (cfg_.session_name.empty() ? ", start URL " + detail::printable(cfg_.start_url, 256)
                                    : ", sso-session " + detail::printable(cfg_.session_name)) +
         ")";
}

FLOE_DECL std::string sso_source::login_hint() const {
  return cfg_.session_name.empty() ? "run `aws sso login --profile " + detail::printable(cfg_.profile) + "`"
                                   : "run `aws sso login --sso-session " + detail::printable(cfg_.session_name) +
                                         "` (or `aws sso login --profile " + detail::printable(cfg_.profile) + "`)";
}

FLOE_DECL boost::asio::awaitable<result<credentials>> sso_source::fetch() {
  namespace asio = boost::asio;
  std::string const what = describe();
  std::string const path = sso_token_path(cfg_);
  auto text = read_shared_file(path);
  if (!text) {
    auto e = text.error();
    e.diag.message = what + ": the SSO token cache: " + e.diag.message;
    co_return e;
  }
  if (!*text)
    co_return error(errc::credentials_unavailable, what + ": no cached SSO token at " + detail::printable(path, 512) +
                                                       "; " + login_hint());
  auto tok = parse_sso_token(**text, "the cached SSO token " + detail::printable(path, 512));
  std::fill((*text)->begin(), (*text)->end(), '\0');
  if (!tok) {
    auto e = tok.error();
    e.code = make_error_code(errc::credentials_unavailable);
    e.diag.message = what + ": " + e.diag.message + "; " + login_hint();
    co_return e;
  }
  auto const now = cfg_.clock ? cfg_.clock() : std::chrono::system_clock::now();
  if (tok->expires_at <= now)
    co_return error(errc::credentials_unavailable, what + ": the cached SSO token expired at " +
                                                       format_iso8601(tok->expires_at) + "; " + login_hint() +
                                                       " (floe does not refresh SSO tokens itself)");

  http::request req;
  req.method = "GET";
  req.target = base_target_ + "/federation/credentials?account_id=" + sigv4::uri_encode(cfg_.account_id, true) +
               "&role_name=" + sigv4::uri_encode(cfg_.role_name, true);
  req.operation = "SSO GetRoleCredentials";
  req.traits.idempotent = true;
  req.headers.set("Host", ep_.host_header());
  req.headers.set("Accept", "application/json");
  req.headers.set("x-amz-sso_bearer_token", std::string(tok->access_token.reveal()));
  http::response res;
  error sent;
  co_await service::send_unsigned(*driver_, ep_, req.operation, req, res, sent);
  if (sent.code) {
    sent.diag.message = what + ": " + sent.code.message() +
                        (sent.diag.message.empty() ? std::string() : " (" + sent.diag.message + ")");
    co_return sent;
  }
  if (res.status != 200) {
    bool const refused = res.status == 401 || res.status == 403;
    error e(errc::credentials_unavailable,
            what + ": the SSO portal answered HTTP " + std::to_string(res.status) +
                (refused ? " (the cached SSO token was refused: it expired or was revoked); " + login_hint() : ""));
    e.diag.http_status = res.status;
    co_return e;
  }
  auto c = parse_sso_role_credentials(res.body, what);
  std::fill(res.body.begin(), res.body.end(), '\0');
  if (!c) co_return c.error();
  c->source = what;
  co_return c;
}

}  // namespace floe::credentials
