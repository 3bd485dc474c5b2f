#pragma once
#include <floe/s3/addressing.hpp>
#include <floe/sigv4/uri_encode.hpp>

#include <algorithm>
#include <charconv>

namespace floe::s3 {

namespace detail {

inline bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }
inline bool is_lower_alnum(char c) noexcept { return (c >= 'a' && c <= 'z') || is_digit(c); }

inline std::string quoted(std::string_view s) {
  return "'" + credentials::detail::printable(s, 300) + "'";
}

using endpoints::detail::is_ipv4;

// A region that is safe to put in a host name or a signing scope even when
// a server chose it: no '.', '/', ':' or anything else that could steer a
// request elsewhere.
inline bool plausible_region(std::string_view r) noexcept {
  if (r.empty() || r.size() > 63) return false;
  for (char c : r)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '-' || c == '_')) return false;
  return true;
}

inline std::optional<std::string> env_value(credentials::env_lookup const& env, std::string_view name) {
  return credentials::non_empty(env, name);
}

using endpoints::detail::authority_into;

inline std::string authority_of(std::string_view host, std::uint16_t port, bool https) {
  std::string a;
  authority_into(a, host, port, https);
  return a;
}

}  // namespace detail

FLOE_DECL result<addressing_config> resolve_addressing(addressing_params const& caller,
                                                       endpoints::resolver const& endpoints, std::string_view region,
                                                       std::string_view region_source,
                                                       credentials::env_lookup const& env,
                                                       credentials::profile const* prof) {
  addressing_config cfg;
  std::string prof_label = prof ? "profile '" + credentials::detail::printable(prof->name) + "'" : std::string();
  auto setting_where = [&](std::string_view key) -> std::string {
    if (!prof) return {};
    if (auto s = prof->find(key)) return s->where();
    return prof_label;
  };

  // Endpoint.
  auto conf = endpoints.configured("s3", caller.endpoint_url);
  if (!conf) return conf.error();
  if (*conf) {
    cfg.custom_endpoint = std::move((*conf)->ep);
    cfg.endpoint_source = std::move((*conf)->source);
  } else {
    cfg.endpoint_source = "default";
  }

  // Region.
  if (!caller.region.empty()) {
    cfg.region = caller.region;
    cfg.region_source = "caller";
  } else if (!region.empty()) {
    cfg.region = std::string(region);
    cfg.region_source = std::string(region_source);
  } else {
    cfg.region = "us-east-1";
    cfg.region_source = "default";
  }
  bool region_ok = cfg.custom_endpoint ? detail::plausible_region(cfg.region) : is_valid_aws_region(cfg.region);
  if (!region_ok)
    return error(errc::invalid_argument,
                 "region " + detail::quoted(cfg.region) + " from " + cfg.region_source +
                     (cfg.custom_endpoint ? " is not a region name (letters, digits, '-', '_')"
                                          : " is not an AWS region name (a-z, 0-9, '-')"));

  // Addressing style.
  if (caller.style) {
    cfg.style = *caller.style;
  } else if (auto s = prof ? prof->get_nested("s3", "addressing_style") : std::nullopt) {
    if (*s == "auto") cfg.style = addressing_style::automatic;
    else if (*s == "virtual") cfg.style = addressing_style::virtual_hosted;
    else if (*s == "path") cfg.style = addressing_style::path;
    else
      return error(errc::invalid_argument, setting_where("s3") + ": s3 addressing_style must be auto, virtual or path");
  }

  // us-east-1: global or regional endpoint.
  auto regional = [](std::string_view v) -> std::optional<bool> {
    if (v == "regional") return true;
    if (v == "legacy") return false;
    return std::nullopt;
  };
  if (caller.us_east_1_regional) {
    cfg.us_east_1_regional = *caller.us_east_1_regional;
  } else if (auto v = detail::env_value(env, "AWS_S3_US_EAST_1_REGIONAL_ENDPOINT")) {
    auto b = regional(*v);
    if (!b) return error(errc::invalid_argument, "AWS_S3_US_EAST_1_REGIONAL_ENDPOINT must be regional or legacy");
    cfg.us_east_1_regional = *b;
  } else if (prof) {
    auto pv = prof->get_nested("s3", "us_east_1_regional_endpoint");
    std::string where = setting_where("s3");
    if (!pv) {
      pv = prof->get("s3_us_east_1_regional_endpoint");
      where = setting_where("s3_us_east_1_regional_endpoint");
    }
    if (pv) {
      auto b = regional(*pv);
      if (!b) return error(errc::invalid_argument, where + ": s3 us_east_1_regional_endpoint must be regional or legacy");
      cfg.us_east_1_regional = *b;
    }
  }
  return cfg;
}

FLOE_DECL region_choice choose_region(credentials::env_lookup const& env, credentials::profile const* prof) {
  region_choice r;
  if (auto v = detail::env_value(env, "AWS_REGION")) {
    r.region = std::move(*v);
    r.source = "AWS_REGION";
  } else if (auto d = detail::env_value(env, "AWS_DEFAULT_REGION")) {
    r.region = std::move(*d);
    r.source = "AWS_DEFAULT_REGION";
  } else if (auto p = prof ? prof->get("region") : std::nullopt; p && !p->empty()) {
    r.region = std::string(*p);
    auto const* s = prof->find("region");
    r.source = s ? s->where() : "profile '" + credentials::detail::printable(prof->name) + "'";
  }
  return r;
}

FLOE_DECL result<addressing_config> resolve_addressing(addressing_params const& caller,
                                                       credentials::env_lookup const& env,
                                                       credentials::profile const* prof) {
  std::optional<endpoints::profile_settings> settings;
  if (prof) settings = prof->endpoint_settings();
  auto r = endpoints::resolver::create(env, std::move(settings));
  if (!r) return r.error();
  auto const region = choose_region(env, prof);
  return resolve_addressing(caller, *r, region.region, region.source, env, prof);
}

FLOE_DECL bool is_dns_compatible(std::string_view b, bool allow_dots) noexcept {
  if (b.size() < 3 || b.size() > 63) return false;
  if (!allow_dots && b.find('.') != std::string_view::npos) return false;
  if (detail::is_ipv4(b)) return false;
  std::size_t start = 0;
  while (start <= b.size()) {
    auto dot = b.find('.', start);
    std::string_view label = b.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (label.empty() || !detail::is_lower_alnum(label.front()) || !detail::is_lower_alnum(label.back())) return false;
    for (char c : label)
      if (!detail::is_lower_alnum(c) && c != '-') return false;
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return true;
}

FLOE_DECL result<void> validate_bucket_name(std::string_view b, bucket_name_rules rules) {
  auto bad = [&](std::string_view why) {
    return error(errc::invalid_argument, "bucket name " + detail::quoted(b) + ": " + std::string(why));
  };
  if (rules == bucket_name_rules::addressable) {
    if (b.empty()) return bad("empty");
    if (b.size() > 255) return bad("longer than 255 characters");
    for (char c : b)
      if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || detail::is_digit(c) || c == '.' || c == '-' || c == '_'))
        return bad("only letters, digits, '.', '-' and '_' are allowed");
    return {};
  }
  if (b.size() < 3 || b.size() > 63) return bad("must be 3 to 63 characters long");
  for (char c : b)
    if (!(detail::is_lower_alnum(c) || c == '.' || c == '-'))
      return bad("only lower-case letters, digits, '.' and '-' are allowed");
  if (!detail::is_lower_alnum(b.front()) || !detail::is_lower_alnum(b.back()))
    return bad("must start and end with a letter or digit");
  if (b.find("..") != std::string_view::npos) return bad("must not contain '..'");
  if (b.find(".-") != std::string_view::npos || b.find("-.") != std::string_view::npos)
    return bad("must not contain '.-' or '-.'");
  if (detail::is_ipv4(b)) return bad("must not look like an IP address");
  for (std::string_view p : {"xn--", "sthree-", "amzn-s3-demo-"})
    if (b.substr(0, p.size()) == p) return bad("the prefix '" + std::string(p) + "' is reserved");
  for (std::string_view s : {"-s3alias", "--ol-s3", ".mrap", "--x-s3", "--table-s3"})
    if (b.size() >= s.size() && b.substr(b.size() - s.size()) == s)
      return bad("the suffix '" + std::string(s) + "' is reserved");
  return {};
}

FLOE_DECL std::string request_target::url(std::string_view query) const {
  std::string u = scheme + "://" + host_header + path;
  if (!query.empty()) {
    u += '?';
    u += query;
  }
  return u;
}

namespace detail {
// Fills `t`, reusing its strings' memory (a target is resolved per request).
inline bool base_target(addressing_config const& cfg, std::string_view region_override, request_target& t, error& why) {
  t.region.assign(region_override.empty() ? std::string_view(cfg.region) : region_override);
  t.virtual_hosted = false;
  if (cfg.custom_endpoint) {
    if (!plausible_region(t.region)) {
      why = error(errc::invalid_argument, "region " + detail::quoted(t.region) + " is not a region name");
      return false;
    }
    auto const& ep = *cfg.custom_endpoint;
    t.scheme.assign(ep.scheme);
    t.host.assign(ep.host);
    t.port = ep.port;
    t.path.assign(ep.base_path);
  } else {
    if (!is_valid_aws_region(t.region)) {
      why = error(errc::invalid_argument, "region " + detail::quoted(t.region) + " is not an AWS region name");
      return false;
    }
    t.scheme.assign("https");
    t.port = 443;
    t.path.clear();
    if (t.region == "us-east-1" && !cfg.us_east_1_regional) {
      t.host.assign("s3.amazonaws.com");
    } else {
      t.host.assign("s3.");
      t.host += t.region;
      t.host += '.';
      t.host += partition_dns_suffix(t.region);
    }
  }
  return true;
}
}  // namespace detail

FLOE_DECL bool resolve_target_into(addressing_config const& cfg, std::string_view bucket,
                                   std::optional<std::string_view> key, std::string_view region, request_target& t,
                                   error& why) {
  if (auto v = validate_bucket_name(bucket); !v) {
    why = std::move(v.error());
    return false;
  }
  if (key) {
    if (key->empty()) {
      why = error(errc::invalid_argument, "object key is empty");
      return false;
    }
    if (key->size() > max_key_size) {
      why = error(errc::invalid_argument, "object key of " + std::to_string(key->size()) + " bytes is longer than " +
                                              std::to_string(max_key_size));
      return false;
    }
  }
  if (!detail::base_target(cfg, region, t, why)) return false;
  bool https = t.scheme == "https";
  bool host_is_ip = cfg.custom_endpoint && cfg.custom_endpoint->host_is_ip;
  switch (cfg.style) {
    case addressing_style::path: t.virtual_hosted = false; break;
    case addressing_style::virtual_hosted: t.virtual_hosted = !host_is_ip && is_dns_compatible(bucket, !https); break;
    case addressing_style::automatic: t.virtual_hosted = !cfg.custom_endpoint && is_dns_compatible(bucket, false); break;
  }
  if (t.virtual_hosted) {
    t.host.insert(0, 1, '.');
    t.host.insert(0, bucket);
    t.path += '/';
  } else {
    t.path += '/';
    sigv4::uri_encode_append(t.path, bucket, true);
    if (key) t.path += '/';
  }
  if (key) sigv4::uri_encode_append(t.path, *key, false);
  detail::authority_into(t.host_header, t.host, t.port, https);
  return true;
}

FLOE_DECL result<request_target> resolve_target(addressing_config const& cfg, std::string_view bucket,
                                                std::optional<std::string_view> key, std::string_view region) {
  request_target t;
  error why;
  if (!resolve_target_into(cfg, bucket, key, region, t, why)) return why;
  return t;
}

FLOE_DECL result<request_target> resolve_service_target(addressing_config const& cfg, std::string_view region) {
  request_target t;
  if (error why; !detail::base_target(cfg, region, t, why)) return why;
  t.path += '/';
  t.host_header = detail::authority_of(t.host, t.port, t.scheme == "https");
  return t;
}

FLOE_DECL bool bucket_region_cache::remember(std::string_view bucket, std::string_view region) {
  if (!detail::plausible_region(region) || bucket.empty()) return false;
  std::lock_guard lock(mutex_);
  std::string b(bucket);
  if (auto it = index_.find(b); it != index_.end()) {
    it->second->second = std::string(region);
    order_.splice(order_.begin(), order_, it->second);
    return true;
  }
  order_.emplace_front(b, std::string(region));
  index_.emplace(std::move(b), order_.begin());
  while (order_.size() > capacity_) {
    index_.erase(order_.back().first);
    order_.pop_back();
  }
  entries_.store(order_.size(), std::memory_order_release);
  return true;
}

FLOE_DECL std::optional<std::string> bucket_region_cache::lookup(std::string_view bucket) {
  // Nothing learned yet (no redirect ever): the usual case costs no lock.
  if (entries_.load(std::memory_order_acquire) == 0) return std::nullopt;
  std::lock_guard lock(mutex_);
  auto it = index_.find(std::string(bucket));
  if (it == index_.end()) return std::nullopt;
  order_.splice(order_.begin(), order_, it->second);
  return it->second->second;
}

FLOE_DECL void bucket_region_cache::forget(std::string_view bucket) {
  std::lock_guard lock(mutex_);
  auto it = index_.find(std::string(bucket));
  if (it == index_.end()) return;
  order_.erase(it->second);
  index_.erase(it);
  entries_.store(order_.size(), std::memory_order_release);
}

FLOE_DECL std::size_t bucket_region_cache::size() const {
  std::lock_guard lock(mutex_);
  return order_.size();
}

}  // namespace floe::s3
