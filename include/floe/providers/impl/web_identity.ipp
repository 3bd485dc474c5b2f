#pragma once
#include <floe/providers/web_identity.hpp>

#include <boost/asio/use_awaitable.hpp>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

namespace floe::credentials {

FLOE_DECL result<std::optional<web_identity_config>> web_identity_from_environment(env_lookup const& env) {
  auto role = non_empty(env, "AWS_ROLE_ARN");
  auto file = non_empty(env, "AWS_WEB_IDENTITY_TOKEN_FILE");
  if (!role && !file) return std::optional<web_identity_config>();
  if (!role)
    return error(errc::invalid_argument, "web identity: AWS_WEB_IDENTITY_TOKEN_FILE is set but AWS_ROLE_ARN is not");
  if (!file)
    return error(errc::invalid_argument, "web identity: AWS_ROLE_ARN is set but AWS_WEB_IDENTITY_TOKEN_FILE is not");
  web_identity_config c;
  c.role_arn = *role;
  c.token_file = *file;
  if (auto n = non_empty(env, "AWS_ROLE_SESSION_NAME")) c.session_name = *n;
  return std::optional<web_identity_config>(std::move(c));
}

FLOE_DECL result<std::string> read_token_file(std::string const& path) {
  constexpr std::size_t limit = 64 * 1024;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    int const err = errno;
    return error(errc::credentials_unavailable, "web identity token file " + detail::printable(path, 256) +
                                                    " cannot be read: " + std::strerror(err));
  }
  std::string token;
  char buf[4096];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    token.append(buf, static_cast<std::size_t>(in.gcount()));
    if (token.size() > limit)
      return error(errc::reply_too_large,
                   "web identity token file " + detail::printable(path, 256) + " is larger than 64 KiB");
  }
  auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  std::size_t b = 0, e = token.size();
  while (b < e && is_space(token[b])) ++b;
  while (e > b && is_space(token[e - 1])) --e;
  if (b == e) return error(errc::credentials_unavailable, "web identity token file " + detail::printable(path, 256) + " is empty");
  return token.substr(b, e - b);
}

FLOE_DECL result<std::unique_ptr<web_identity_source>> web_identity_source::create(boost::asio::any_io_executor ex,
                                                                                  web_identity_config cfg,
                                                                                  sts::client_config sts) {
  if (cfg.role_arn.empty()) return error(errc::invalid_argument, "web identity: the role ARN is empty");
  if (cfg.token_file.empty()) return error(errc::invalid_argument, "web identity: the token file is not set");
  auto clock = sts.clock;
  auto c = sts::client::create(std::move(ex), std::move(sts));
  if (!c) return c.error();
  std::unique_ptr<web_identity_source> s(new web_identity_source(std::move(cfg), std::move(*c)));
  s->clock_ = std::move(clock);
  return s;
}

FLOE_DECL std::string web_identity_source::describe() const {
  return "web identity (role " + detail::printable(cfg_.role_arn, 256) + ", token file " +
         detail::printable(cfg_.token_file, 256) + ")";
}

FLOE_DECL boost::asio::awaitable<result<credentials>> web_identity_source::fetch() {
  sts::web_identity_request req;
  req.role_arn = cfg_.role_arn;
  req.role_session_name = cfg_.session_name.empty()
                              ? sts::default_session_name(clock_ ? clock_() : std::chrono::system_clock::now())
                              : cfg_.session_name;
  req.duration = cfg_.duration;
  std::string const path = cfg_.token_file;
  sts::token_source tok = [path]() { return read_token_file(path); };
  auto r = co_await sts_->async_assume_role_with_web_identity(req, tok, boost::asio::use_awaitable);
  if (!r) co_return r.error();
  credentials c = std::move(r->creds);
  c.source = describe();
  co_return c;
}

FLOE_DECL result<std::shared_ptr<refreshing_provider>> make_web_identity_provider(boost::asio::any_io_executor ex,
                                                                                 web_identity_config cfg,
                                                                                 sts::client_config sts,
                                                                                 refreshing_params params) {
  auto src = web_identity_source::create(ex, std::move(cfg), std::move(sts));
  if (!src) return src.error();
  std::unique_ptr<refreshing_source> base = std::move(*src);
  return refreshing_provider::create(std::move(ex), std::move(base), std::move(params));
}

FLOE_DECL result<std::shared_ptr<refreshing_provider>> make_web_identity_provider_from_environment(
    boost::asio::any_io_executor ex, env_lookup const& env, sts::client_config sts, refreshing_params params) {
  auto cfg = web_identity_from_environment(env);
  if (!cfg) return cfg.error();
  if (!*cfg) return std::shared_ptr<refreshing_provider>();
  if (!sts.env) sts.env = env;
  return make_web_identity_provider(std::move(ex), std::move(**cfg), std::move(sts), std::move(params));
}

}  // namespace floe::credentials
