#pragma once
#include <floe/s3/query_builder.hpp>
#include <floe/sigv4/uri_encode.hpp>

#include <algorithm>
#include <tuple>
#include <utility>

namespace floe::s3 {

FLOE_DECL query_builder& query_builder::add(std::string_view name, std::string_view value) {
  param p{sigv4::uri_encode(name, true), sigv4::uri_encode(value, true), false};
  auto less = [](param const& a, param const& b) { return std::tie(a.name, a.value) < std::tie(b.name, b.value); };
  params_.insert(std::upper_bound(params_.begin(), params_.end(), p, less), std::move(p));
  return *this;
}

FLOE_DECL query_builder& query_builder::add_flag(std::string_view name) {
  param p{sigv4::uri_encode(name, true), std::string(), true};
  auto less = [](param const& a, param const& b) { return std::tie(a.name, a.value) < std::tie(b.name, b.value); };
  params_.insert(std::upper_bound(params_.begin(), params_.end(), p, less), std::move(p));
  return *this;
}

FLOE_DECL void query_builder::append_to(std::string& target) const {
  char sep = '?';
  for (auto const& p : params_) {
    target += sep;
    sep = '&';
    target += p.name;
    if (!p.flag) {
      target += '=';
      target += p.value;
    }
  }
}

FLOE_DECL std::string query_builder::str() const {
  std::string s;
  append_to(s);
  if (!s.empty()) s.erase(0, 1);  // the '?'
  return s;
}

FLOE_DECL std::string query_builder::canonical() const {
  std::string s;
  for (auto const& p : params_) {
    if (!s.empty()) s += '&';
    s += p.name;
    s += '=';
    s += p.value;
  }
  return s;
}

FLOE_DECL std::vector<sigv4::query_param_view> query_builder::params() const {
  std::vector<sigv4::query_param_view> v;
  v.reserve(params_.size());
  for (auto const& p : params_) v.push_back({p.name, p.value});
  return v;
}

}  // namespace floe::s3
