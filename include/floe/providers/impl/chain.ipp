#pragma once
#include <floe/providers/chain.hpp>

#include <floe/providers/assume_role.hpp>
#include <floe/credentials/process.hpp>
#include <floe/providers/sso.hpp>
#include <floe/providers/web_identity.hpp>

#include <boost/asio/associated_cancellation_slot.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/bind_executor.hpp>

namespace floe::credentials {

namespace detail {
inline result<std::shared_ptr<provider>> refreshing_over(boost::asio::any_io_executor ex,
                                                          std::unique_ptr<refreshing_source> src,
                                                          refreshing_params const& params) {
  std::shared_ptr<provider> p = refreshing_provider::create(std::move(ex), std::move(src), params);
  return p;
}
}  // namespace detail

FLOE_DECL result<std::shared_ptr<provider>> make_profile_provider(boost::asio::any_io_executor ex,
                                                                  profile_plan const& plan, chain_config const& cfg) {
  auto env = cfg.env ? cfg.env : process_environment();
  sts::client_config sts_cfg = cfg.sts;
  if (!sts_cfg.env) sts_cfg.env = env;
  std::string const who = "profile " + detail::printable(plan.base_profile) + ": ";
  std::shared_ptr<provider> p;
  switch (plan.base) {
    case profile_base_kind::static_keys: {
      if (!plan.static_keys) return error(errc::invalid_argument, who + "no static keys in the plan");
      p = std::make_shared<static_provider>(*plan.static_keys);
      break;
    }
    case profile_base_kind::web_identity: {
      web_identity_config w;
      w.role_arn = plan.web_identity_role_arn;
      w.token_file = plan.web_identity_token_file;
      w.session_name = plan.web_identity_session_name;
      auto r = make_web_identity_provider(ex, std::move(w), sts_cfg, cfg.refresh);
      if (!r) return r.error();
      p = std::move(*r);
      break;
    }
    case profile_base_kind::process: {
      process_config pc;
      pc.command = plan.process_command;
      pc.profile = plan.base_profile;
      pc.timeout = cfg.process_timeout;
      auto src = process_source::create(ex, std::move(pc));
      if (!src) return src.error();
      auto r = detail::refreshing_over(ex, std::move(*src), cfg.refresh);
      if (!r) return r.error();
      p = std::move(*r);
      break;
    }
    case profile_base_kind::environment: {
      auto fe = credentials_from_environment(env);
      if (!fe) return fe.error();
      if (!*fe)
        return error(errc::invalid_argument,
                     who + "credential_source Environment, but AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set");
      p = std::make_shared<static_provider>(std::move(**fe));
      break;
    }
    case profile_base_kind::container: {
      auto cc = container_from_environment(env);
      if (!cc) return cc.error();
      if (!*cc)
        return error(errc::invalid_argument, who +
                                                 "credential_source EcsContainer, but neither "
                                                 "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI nor _FULL_URI is set");
      auto src = container_source::create(ex, std::move(**cc));
      if (!src) return src.error();
      auto r = detail::refreshing_over(ex, std::move(*src), cfg.refresh);
      if (!r) return r.error();
      p = std::move(*r);
      break;
    }
    case profile_base_kind::imds: {
      auto ic = imds_from_environment(env);
      if (!ic) return ic.error();
      if (!*ic)
        return error(errc::invalid_argument,
                     who + "credential_source Ec2InstanceMetadata, but AWS_EC2_METADATA_DISABLED is true");
      (*ic)->timeout = cfg.imds_timeout;
      auto src = imds_source::create(ex, std::move(**ic));
      if (!src) return src.error();
      auto r = detail::refreshing_over(ex, std::move(*src), cfg.refresh);
      if (!r) return r.error();
      p = std::move(*r);
      break;
    }
    case profile_base_kind::sso: {
      auto sc = sso_config_from_plan(plan, env, cfg.endpoints ? &*cfg.endpoints : nullptr);
      if (!sc) return sc.error();
      sc->clock = cfg.refresh.clock;
      sc->http = cfg.http;
      if (!sc->http.tls.env) sc->http.tls.env = env;
      auto const& px = sc->http.proxy;
      if (cfg.proxy_from_env && px.http_proxy.empty() && px.https_proxy.empty() && px.no_proxy.empty())
        sc->http.proxy = http::proxy_config::from_env(env);
      auto src = sso_source::create(ex, std::move(*sc));
      if (!src) return src.error();
      auto r = detail::refreshing_over(ex, std::move(*src), cfg.refresh);
      if (!r) return r.error();
      p = std::move(*r);
      break;
    }
  }
  for (auto const& step : plan.roles) {
    auto src = assume_role_source::create(ex, step, p, sts_cfg);
    if (!src) return src.error();
    auto r = detail::refreshing_over(ex, std::move(*src), cfg.refresh);
    if (!r) return r.error();
    p = std::move(*r);
  }
  return p;
}

FLOE_DECL chain_provider::chain_provider(token, std::shared_ptr<provider> chosen, std::string chosen_name,
                                         std::vector<chain_skip> skipped, bool last_resort)
    : chosen_(std::move(chosen)),
      chosen_name_(std::move(chosen_name)),
      skipped_(std::move(skipped)),
      last_resort_(last_resort) {}

FLOE_DECL result<std::shared_ptr<chain_provider>> chain_provider::create(boost::asio::any_io_executor ex,
                                                                         chain_config cfg) {
  auto env = cfg.env ? cfg.env : process_environment();
  cfg.env = env;
  if (!cfg.sts.env) cfg.sts.env = env;
  std::vector<chain_skip> skipped;
  auto pick = [&](std::shared_ptr<provider> p, std::string name, bool last_resort = false) {
    return std::make_shared<chain_provider>(token{}, std::move(p), std::move(name), std::move(skipped), last_resort);
  };

  // 1. Keys in the environment.
  auto fe = credentials_from_environment(env);
  if (!fe) return fe.error();
  if (*fe) return pick(std::make_shared<static_provider>(std::move(**fe)), "environment");
  skipped.push_back({"environment", "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set"});

  // 2. Web identity from the environment.
  auto wi = web_identity_from_environment(env);
  if (!wi) return wi.error();
  if (*wi) {
    auto p = make_web_identity_provider(ex, std::move(**wi), cfg.sts, cfg.refresh);
    if (!p) return p.error();
    return pick(std::move(*p), "web identity");
  }
  skipped.push_back({"web identity", "AWS_ROLE_ARN and AWS_WEB_IDENTITY_TOKEN_FILE are not set"});

  // 3. The profile.
  auto where = locate_shared_files(cfg.shared_files, env);
  auto files = load_shared_config(where);
  if (!files) return files.error();
  auto plan = resolve_profile_plan(*files, where.profile);
  if (plan) {
    auto p = make_profile_provider(ex, *plan, cfg);
    if (!p) return p.error();
    return pick(std::move(*p), "profile " + detail::printable(where.profile));
  }
  if (plan.error().code != errc::credentials_unavailable) return plan.error();
  if (where.explicit_profile() && !files->config_section(where.profile) && !files->credentials_section(where.profile))
    return error(errc::invalid_argument,
                 files->explain_missing(where.profile) + " (named by " + where.profile_source + ")");
  skipped.push_back({"shared files", plan.error().diag.message});

  // 4. Container credentials.
  auto cc = container_from_environment(env);
  if (!cc) return cc.error();
  if (*cc) {
    auto src = container_source::create(ex, std::move(**cc));
    if (!src) return src.error();
    auto p = detail::refreshing_over(ex, std::move(*src), cfg.refresh);
    if (!p) return p.error();
    return pick(std::move(*p), "container");
  }
  skipped.push_back({"container", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI and _FULL_URI are not set"});

  // 5. Instance metadata, the last resort.
  auto ic = imds_from_environment(env);
  if (!ic) return ic.error();
  if (*ic) {
    (*ic)->timeout = cfg.imds_timeout;
    auto src = imds_source::create(ex, std::move(**ic));
    if (!src) return src.error();
    auto p = detail::refreshing_over(ex, std::move(*src), cfg.refresh);
    if (!p) return p.error();
    return pick(std::move(*p), "IMDS", true);
  }
  skipped.push_back({"IMDS", "disabled by AWS_EC2_METADATA_DISABLED"});
  std::string m = "no credentials found; tried";
  for (auto const& s : skipped) m += " " + s.source + ": " + s.why + ";";
  m.pop_back();
  return pick(std::make_shared<static_provider>(error(errc::credentials_unavailable, std::move(m))), "none");
}

FLOE_DECL result<credentials> chain_provider::note(result<credentials> r) {
  if (r) {
    worked_ = true;
    return r;
  }
  if (last_resort_ && !worked_.load()) {
    // Nothing else was configured and IMDS did not answer: say so for
    // every source, not only IMDS.
    auto e = r.error();
    std::string m = "no credentials found; tried";
    for (auto const& s : skipped_) m += " " + s.source + ": " + s.why + ";";
    m += " IMDS: " + e.diag.message;
    e.diag.message = std::move(m);
    e.code = make_error_code(errc::credentials_unavailable);
    return e;
  }
  return r;
}

FLOE_DECL result<credentials> chain_provider::get() {
  auto r = chosen_->get();
  if (r) worked_ = true;
  return r;
}

FLOE_DECL std::shared_ptr<credentials const> chain_provider::lend() {
  auto c = chosen_->lend();
  if (c) worked_ = true;
  return c;
}

FLOE_DECL std::string chain_provider::describe() const { return "default chain: " + chosen_->describe(); }

FLOE_DECL void chain_provider::do_async_get(boost::asio::any_completion_handler<get_signature> handler,
                                           boost::asio::any_io_executor ex) {
  namespace asio = boost::asio;
  auto slot = asio::get_associated_cancellation_slot(handler);
  auto self = shared_from_this();
  chosen_->async_get(asio::bind_cancellation_slot(
      slot, asio::bind_executor(ex, [self, h = std::move(handler)](result<credentials> r) mutable {
        std::move(h)(self->note(std::move(r)));
      })));
}

FLOE_DECL result<std::shared_ptr<provider>> make_default_chain(boost::asio::any_io_executor ex, chain_config cfg) {
  auto c = chain_provider::create(std::move(ex), std::move(cfg));
  if (!c) return c.error();
  std::shared_ptr<provider> p = std::move(*c);
  return p;
}

}  // namespace floe::credentials
