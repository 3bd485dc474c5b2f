#pragma once
#include <floe/session/session.hpp>

#include <floe/credentials/ini.hpp>

namespace floe {

FLOE_DECL result<std::shared_ptr<session>> session::create(session_params p) {
  std::shared_ptr<session> s(new session());
  s->env_ = environment_or_process(std::move(p.env));
  s->files_params_ = std::move(p.shared_files);
  s->where_ = credentials::locate_shared_files(s->files_params_, s->env_);
  // The profile feeds the region and the endpoints; a profile that was
  // named explicitly must exist (unless the caller brings the credentials).
  auto files = credentials::load_shared_config(s->where_);
  if (!files) return files.error();
  s->profile_ = files->find_profile(s->where_.profile);
  if (!s->profile_ && s->where_.explicit_profile() && p.credentials == nullptr)
    return error(errc::invalid_argument, files->explain_missing(s->where_.profile));
  credentials::profile const* prof = s->profile();
  if (!p.region.empty()) {
    s->region_ = std::move(p.region);
    s->region_source_ = "caller";
  } else if (auto v = non_empty(s->env_, "AWS_REGION")) {
    s->region_ = std::move(*v);
    s->region_source_ = "AWS_REGION";
  } else if (auto d = non_empty(s->env_, "AWS_DEFAULT_REGION")) {
    s->region_ = std::move(*d);
    s->region_source_ = "AWS_DEFAULT_REGION";
  } else if (auto r = prof ? prof->get("region") : std::nullopt; r && !r->empty()) {
    s->region_ = std::string(*r);
    auto const* where = prof->find("region");
    s->region_source_ = where ? where->where() : "profile '" + credentials::detail::printable(prof->name) + "'";
  }
  std::optional<endpoints::profile_settings> settings;
  if (prof) settings = prof->endpoint_settings();
  auto resolver = endpoints::resolver::create(s->env_, std::move(settings));
  if (!resolver) return resolver.error();
  s->endpoints_ = std::move(*resolver);
  s->provider_ = std::move(p.credentials);
  s->http_ = std::move(p.http);
  if (p.proxy_from_env) s->http_.proxy = http::proxy_config::from_env(s->env_);
  if (!s->http_.tls.env) s->http_.tls.env = s->env_;  // AWS_CA_BUNDLE through the session's lookup
  return s;
}

FLOE_DECL result<service_endpoint> session::endpoint_for(std::string_view service_id, std::string_view caller_url) const {
  auto r = endpoints_.resolve(service_id, region_, caller_url,
                              region_source_.empty() ? std::string_view("the configuration") : region_source_);
  if (!r) return r.error();
  auto u = http::parse_url(r->ep.url());
  if (!u) return u.error();
  service_endpoint out;
  out.ep = std::move(u->ep);
  out.base_path = r->ep.base_path;
  out.signing_region = std::move(r->signing_region);
  out.source = std::move(r->source);
  out.custom = r->custom;
  return out;
}

}  // namespace floe
