#pragma once
#include <floe/credentials/profile_chain.hpp>

#include <algorithm>
#include <charconv>

namespace floe::credentials {

FLOE_DECL std::string_view to_string(profile_base_kind k) noexcept {
  switch (k) {
    case profile_base_kind::static_keys: return "static keys";
    case profile_base_kind::web_identity: return "web identity";
    case profile_base_kind::process: return "credential_process";
    case profile_base_kind::environment: return "credential_source Environment";
    case profile_base_kind::container: return "credential_source EcsContainer";
    case profile_base_kind::imds: return "credential_source Ec2InstanceMetadata";
    case profile_base_kind::sso: return "SSO";
  }
  return "?";
}

FLOE_DECL std::string profile_plan::describe() const {
  std::string s = "profile " + detail::printable(path.empty() ? base_profile : path.front());
  for (auto it = roles.rbegin(); it != roles.rend(); ++it) s += " -> role " + detail::printable(it->role_arn, 256);
  s += " (" + std::string(to_string(base)) + " of profile " + detail::printable(base_profile) + ")";
  return s;
}

namespace detail {

inline std::string join_path(std::vector<std::string> const& path, std::string_view last) {
  std::string s;
  for (auto const& p : path) s += printable(p) + " -> ";
  return s + printable(last);
}

// The config file's [sso-session NAME] section (the later one when given
// twice), or nullptr.
inline ini_section const* sso_session_section(shared_config const& files, std::string_view name) {
  if (!files.config) return nullptr;
  ini_section const* found = nullptr;
  for (auto const& s : files.config->sections) {
    auto n = prefixed_name(s.name, "sso-session");
    if (n && *n == name) found = &s;
  }
  return found;
}

// SSO settings of profile `p`, as botocore's SSOProvider reads them: the
// profile is an SSO profile when it sets sso_account_id or sso_role_name;
// sso_session pulls sso_start_url and sso_region from its section (a value
// set in both places must agree). nullopt: not an SSO profile.
inline result<std::optional<profile_plan>> resolve_sso(shared_config const& files, profile const& p,
                                                       std::string_view name, profile_plan plan) {
  if (!p.get("sso_account_id") && !p.get("sso_role_name")) return std::optional<profile_plan>();
  auto where = [&](std::string_view key) {
    auto s = p.find(key);
    return s ? s->where() + ": " : std::string();
  };
  std::string start_url, region;
  if (auto v = p.get("sso_start_url")) start_url = std::string(*v);
  if (auto v = p.get("sso_region")) region = std::string(*v);
  if (auto session = p.get("sso_session")) {
    auto sec = sso_session_section(files, *session);
    if (!sec)
      return error(errc::invalid_argument, where("sso_session") + quoted_profile(name) + ": sso_session '" +
                                               printable(*session) + "' has no [sso-session " + printable(*session) +
                                               "] section in the config file " + printable(files.config_file, 512));
    for (auto [key, out] : {std::pair<char const*, std::string*>{"sso_start_url", &start_url},
                            std::pair<char const*, std::string*>{"sso_region", &region}}) {
      auto e = sec->find(key);
      if (!e || e->is_nested()) continue;
      if (p.get(key) && *out != e->value)
        return error(errc::invalid_argument, where(key) + quoted_profile(name) + ": " + key +
                                                 " differs between the profile and [sso-session " +
                                                 printable(*session) + "]");
      *out = e->value;
    }
    plan.sso_session = std::string(*session);
  }
  plan.sso_start_url = std::move(start_url);
  plan.sso_region = std::move(region);
  if (auto v = p.get("sso_account_id")) plan.sso_account_id = std::string(*v);
  if (auto v = p.get("sso_role_name")) plan.sso_role_name = std::string(*v);
  std::string missing;
  for (auto [key, v] : {std::pair<char const*, std::string const*>{"sso_start_url", &plan.sso_start_url},
                        std::pair<char const*, std::string const*>{"sso_region", &plan.sso_region},
                        std::pair<char const*, std::string const*>{"sso_account_id", &plan.sso_account_id},
                        std::pair<char const*, std::string const*>{"sso_role_name", &plan.sso_role_name}})
    if (v->empty()) missing += (missing.empty() ? "" : ", ") + std::string(key);
  if (!missing.empty())
    return error(errc::invalid_argument, where(p.find("sso_account_id") ? "sso_account_id" : "sso_role_name") +
                                             quoted_profile(name) + " is configured for SSO but lacks " + missing);
  plan.base = profile_base_kind::sso;
  plan.base_profile = std::string(name);
  return std::optional<profile_plan>(std::move(plan));
}

inline result<profile_plan> resolve_plan(shared_config const& files, std::string_view name,
                                         std::vector<std::string> path, bool top) {
  auto p = files.find_profile(name);
  if (!p) {
    if (top) return error(errc::credentials_unavailable, files.explain_missing(name));
    return error(errc::invalid_argument,
                 "source_profile of " + quoted_profile(path.back()) + ": " + files.explain_missing(name));
  }
  path.emplace_back(name);
  bool const has_keys = p->get("aws_access_key_id").has_value() || p->get("aws_secret_access_key").has_value();
  auto where = [&](std::string_view key) {
    auto s = p->find(key);
    return s ? s->where() + ": " : std::string();
  };

  auto with_static = [&](profile_plan plan) -> result<profile_plan> {
    auto c = credentials_from_profile(files, name);
    if (!c) return c.error();
    plan.base = profile_base_kind::static_keys;
    plan.base_profile = std::string(name);
    plan.static_keys = std::move(*c);
    return plan;
  };

  // botocore's base order within one profile: SSO, the credentials file's
  // keys, credential_process, the config file's keys.
  auto base_of = [&](profile_plan plan) -> result<std::optional<profile_plan>> {
    auto sso = resolve_sso(files, *p, name, plan);
    if (!sso || *sso) return sso;
    auto ks = files.credentials_section(name);
    bool const keys_in_credentials_file = ks && (ks->find("aws_access_key_id") || ks->find("aws_secret_access_key"));
    if (keys_in_credentials_file) {
      auto r = with_static(std::move(plan));
      if (!r) return r.error();
      return std::optional<profile_plan>(std::move(*r));
    }
    if (auto cmd = p->get("credential_process")) {
      if (cmd->empty())
        return error(errc::invalid_argument, where("credential_process") + quoted_profile(name) + ": credential_process is empty");
      plan.base = profile_base_kind::process;
      plan.base_profile = std::string(name);
      plan.process_command = std::string(*cmd);
      return std::optional<profile_plan>(std::move(plan));
    }
    if (has_keys) {
      auto r = with_static(std::move(plan));
      if (!r) return r.error();
      return std::optional<profile_plan>(std::move(*r));
    }
    return std::optional<profile_plan>();
  };

  profile_plan plan;
  plan.path = path;
  if (!top && has_keys) {
    auto b = base_of(std::move(plan));
    if (!b) return b.error();
    return std::move(**b);  // has_keys: never nullopt
  }

  if (auto role = p->get("role_arn")) {
    role_step step;
    step.profile = std::string(name);
    step.role_arn = std::string(*role);
    if (step.role_arn.empty()) return error(errc::invalid_argument, where("role_arn") + quoted_profile(name) + ": role_arn is empty");
    if (auto v = p->get("role_session_name")) step.session_name = std::string(*v);
    if (auto v = p->get("external_id")) step.external_id = std::string(*v);
    if (auto v = p->get("duration_seconds")) {
      long long n = 0;
      auto r = std::from_chars(v->data(), v->data() + v->size(), n);
      if (r.ec != std::errc{} || r.ptr != v->data() + v->size() || n < 900 || n > 43200)
        return error(errc::invalid_argument, where("duration_seconds") + quoted_profile(name) +
                                                 ": duration_seconds must be 900 to 43200");
      step.duration = std::chrono::seconds(n);
    }
    auto src = p->get("source_profile");
    auto cs = p->get("credential_source");
    auto wit = p->get("web_identity_token_file");
    if (src && cs)
      return error(errc::invalid_argument, where("credential_source") + quoted_profile(name) +
                                               " sets both source_profile and credential_source; use one");
    if (src) {
      if (*src == name) {
        if (!has_keys)
          return error(errc::invalid_argument, where("source_profile") + quoted_profile(name) +
                                                   ": source_profile cycle: " + join_path(path, *src) +
                                                   " (a profile may name itself only when it has static keys)");
        auto r = with_static(std::move(plan));
        if (!r) return r.error();
        r->roles.push_back(std::move(step));
        return r;
      }
      if (std::find(path.begin(), path.end(), *src) != path.end())
        return error(errc::invalid_argument,
                     where("source_profile") + "source_profile cycle: " + join_path(path, *src));
      auto inner = resolve_plan(files, *src, path, false);
      if (!inner) return inner.error();
      inner->roles.push_back(std::move(step));
      return inner;
    }
    if (cs) {
      if (*cs == "Environment") plan.base = profile_base_kind::environment;
      else if (*cs == "EcsContainer") plan.base = profile_base_kind::container;
      else if (*cs == "Ec2InstanceMetadata") plan.base = profile_base_kind::imds;
      else
        return error(errc::invalid_argument, where("credential_source") + quoted_profile(name) +
                                                 ": credential_source must be Environment, EcsContainer or "
                                                 "Ec2InstanceMetadata, not '" + printable(*cs) + "'");
      plan.base_profile = std::string(name);
      plan.roles.push_back(std::move(step));
      return plan;
    }
    if (wit) {
      if (wit->empty())
        return error(errc::invalid_argument, where("web_identity_token_file") + quoted_profile(name) +
                                                 ": web_identity_token_file is empty");
      plan.base = profile_base_kind::web_identity;
      plan.base_profile = std::string(name);
      plan.web_identity_role_arn = step.role_arn;
      plan.web_identity_token_file = std::string(*wit);
      plan.web_identity_session_name = step.session_name;
      return plan;
    }
    return error(errc::invalid_argument, where("role_arn") + quoted_profile(name) +
                                             " sets role_arn but none of source_profile, credential_source or "
                                             "web_identity_token_file");
  }
  auto b = base_of(std::move(plan));
  if (!b) return b.error();
  if (*b) return std::move(**b);
  std::string m = quoted_profile(name) +
                  " has no credentials (no aws_access_key_id, role_arn, sso_account_id/sso_role_name or credential_process)";
  if (!top) return error(errc::invalid_argument, "source_profile " + m);
  std::string others;
  for (std::string_view k : {"sso_session", "sso_start_url", "web_identity_token_file"})
    if (p->find(k)) others += (others.empty() ? "" : ", ") + std::string(k);
  if (!others.empty())
    m += "; it sets " + others +
         " (SSO credentials need sso_account_id and sso_role_name; web_identity_token_file needs role_arn)";
  return error(errc::credentials_unavailable, std::move(m));
}

}  // namespace detail

FLOE_DECL result<profile_plan> resolve_profile_plan(shared_config const& files, std::string_view name) {
  return detail::resolve_plan(files, name, {}, true);
}

}  // namespace floe::credentials
