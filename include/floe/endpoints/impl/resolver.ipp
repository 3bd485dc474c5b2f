#pragma once
#include <floe/endpoints/resolver.hpp>
#include <floe/endpoints/impl/endpoint.ipp>  // detail helpers

namespace floe::endpoints {

namespace detail {

inline std::optional<bool> parse_bool(std::string_view v) {
  std::string l(v);
  for (auto& c : l)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  if (l == "true") return true;
  if (l == "false") return false;
  return std::nullopt;
}

inline std::string with_underscores(std::string_view id, bool upper) {
  std::string out;
  out.reserve(id.size());
  for (char c : id) {
    if (c == ' ' || c == '-') c = '_';
    else if (upper && c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    else if (!upper && c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    out += c;
  }
  return out;
}

}  // namespace detail

FLOE_DECL std::string endpoint_variable(std::string_view service_id) {
  return "AWS_ENDPOINT_URL_" + detail::with_underscores(service_id, true);
}

FLOE_DECL std::string services_key(std::string_view service_id) { return detail::with_underscores(service_id, false); }

FLOE_DECL result<resolver> resolver::create(env_lookup env, std::optional<profile_settings> profile) {
  resolver r;
  r.env_ = std::move(env);
  r.profile_ = std::move(profile);
  if (auto v = non_empty(r.env_, "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS")) {
    auto b = detail::parse_bool(*v);
    if (!b) return error(errc::invalid_argument, "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS must be true or false");
    r.ignore_ = *b;
    r.ignore_source_ = "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS";
  } else if (r.profile_ && r.profile_->ignore_configured_endpoint_urls) {
    auto b = detail::parse_bool(*r.profile_->ignore_configured_endpoint_urls);
    if (!b)
      return error(errc::invalid_argument, r.profile_->ignore_where +
                                               ": ignore_configured_endpoint_urls must be true or false");
    r.ignore_ = *b;
    r.ignore_source_ = r.profile_->ignore_where;
  }
  return r;
}

FLOE_DECL result<std::optional<resolved>> resolver::configured(std::string_view service_id,
                                                               std::string_view caller_url) const {
  std::string url, source;
  if (!caller_url.empty()) {
    url = std::string(caller_url);
    source = "caller";
  } else if (!ignore_) {
    std::string const var = endpoint_variable(service_id);
    if (auto v = non_empty(env_, var)) {
      url = std::move(*v);
      source = var;
    } else if (auto g = non_empty(env_, "AWS_ENDPOINT_URL")) {
      url = std::move(*g);
      source = "AWS_ENDPOINT_URL";
    } else if (profile_) {
      std::string const key = services_key(service_id);
      for (auto const& [k, u] : profile_->service_urls) {
        if (detail::with_underscores(k, false) == key && !u.empty()) {
          url = u;
          source = profile_->label + " services '" + profile_->services + "'";
          break;
        }
      }
      if (url.empty() && !profile_->endpoint_url.empty()) {
        url = profile_->endpoint_url;
        source = profile_->endpoint_url_where;
      }
    }
  }
  if (url.empty()) return std::optional<resolved>();
  auto ep = parse_endpoint_url(url, source == "caller" ? "endpoint URL" : source);
  if (!ep) return ep.error();
  resolved r;
  r.ep = std::move(*ep);
  r.source = std::move(source);
  r.custom = true;
  return std::optional<resolved>(std::move(r));
}

FLOE_DECL result<resolved> resolver::resolve(std::string_view service_id, std::string_view region,
                                             std::string_view caller_url, std::string_view region_source) const {
  auto conf = configured(service_id, caller_url);
  if (!conf) return conf.error();
  if (*conf) {
    resolved r = std::move(**conf);
    r.signing_region = region.empty() ? "us-east-1" : std::string(region);
    return r;
  }
  resolved r;
  r.source = "default";
  r.ep.scheme = "https";
  r.ep.port = 443;
  std::string const id = services_key(service_id);
  if (region.empty()) {
    if (id != "sts")
      return error(errc::invalid_argument, "no region is configured for " + std::string(service_id) +
                                               " (set AWS_REGION or the profile's region)");
    r.ep.host = "sts.amazonaws.com";  // the global endpoint
    r.signing_region = "us-east-1";
    return r;
  }
  if (!is_valid_aws_region(region))
    return error(errc::invalid_argument, "region " + detail::quoted(region) + " from " + std::string(region_source) +
                                             " is not an AWS region name (a-z, 0-9, '-')");
  r.ep.host = id == "sso" ? std::string("portal.sso") : id;
  r.ep.host += '.';
  r.ep.host += region;
  r.ep.host += '.';
  r.ep.host += partition_dns_suffix(region);
  r.signing_region = std::string(region);
  return r;
}

}  // namespace floe::endpoints
