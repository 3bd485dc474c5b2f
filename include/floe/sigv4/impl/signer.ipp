#pragma once
#include <floe/sigv4/signer.hpp>
#include <floe/detail/sha256.hpp>
#include <floe/sigv4/uri_encode.hpp>

#include <algorithm>
#include <charconv>

namespace floe::sigv4 {

namespace detail {

constexpr char lower(char c) noexcept { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

constexpr bool iequals(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (lower(a[i]) != lower(b[i])) return false;
  return true;
}

// Bytewise order of the lower-cased names.
constexpr int icompare(std::string_view a, std::string_view b) noexcept {
  std::size_t const n = std::min(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i) {
    auto const x = static_cast<unsigned char>(lower(a[i]));
    auto const y = static_cast<unsigned char>(lower(b[i]));
    if (x != y) return x < y ? -1 : 1;
  }
  return a.size() == b.size() ? 0 : (a.size() < b.size() ? -1 : 1);
}

constexpr std::string_view trim(std::string_view s) noexcept {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

inline error invalid(char const* why) { return error(errc::invalid_argument, why); }

inline result<void> validate(request_view const& req, credentials_view const& creds,
                             signing_params const& params) {
  if (req.method.empty()) return invalid("sigv4: empty HTTP method");
  if (params.region.empty()) return invalid("sigv4: empty region");
  if (params.service.empty()) return invalid("sigv4: empty service");
  if (creds.access_key_id.empty()) return invalid("sigv4: empty access key id");
  return {};
}

inline void append_scope(std::string& out, std::string_view amz_date, std::string_view region,
                         std::string_view service) {
  out += amz_date.substr(0, 8);
  out += '/';
  out += region;
  out += '/';
  out += service;
  out += "/aws4_request";
}

}  // namespace detail

FLOE_DECL void signer::canonical_headers(std::string& canonical, std::string& signed_list) {
  std::sort(headers_.begin(), headers_.end(), [](sorted_header const& a, sorted_header const& b) {
    int const c = detail::icompare(a.name, b.name);
    return c != 0 ? c < 0 : a.index < b.index;
  });
  signed_list.clear();
  for (std::size_t i = 0; i < headers_.size();) {
    std::string_view const name = headers_[i].name;
    if (!signed_list.empty()) signed_list += ';';
    // Whole names at a time: lower-cased straight into the canonical text,
    // then copied from there to the signed list.
    std::size_t const at = canonical.size();
    canonical.resize(at + name.size());
    std::transform(name.begin(), name.end(), canonical.begin() + static_cast<std::ptrdiff_t>(at), detail::lower);
    signed_list.append(canonical, at, name.size());
    canonical += ':';
    bool first = true;
    for (; i < headers_.size() && detail::iequals(headers_[i].name, name); ++i) {
      if (!first) canonical += ',';
      first = false;
      append_canonical_header_value(canonical, headers_[i].value);
    }
    canonical += '\n';
  }
}

FLOE_DECL void signer::finish(std::string_view amz_date, credentials_view const& creds,
                              signing_params const& params, std::string const& canonical_request,
                              std::string& string_to_sign, std::string& signature) {
  string_to_sign.clear();
  append_string_to_sign(string_to_sign, amz_date, params.region, params.service, canonical_request);
  auto key = cache_.get(creds.secret_access_key, amz_date.substr(0, 8), params.region, params.service);
  auto const mac = floe::detail::hmac_sha256::mac(key, string_to_sign);
  floe::detail::secure_wipe(key.data(), key.size());
  signature.resize(64);
  floe::detail::hex_lower(mac, signature.data());
}

FLOE_DECL result<void> signer::sign_headers(request_view const& req, credentials_view const& creds,
                                            signing_params const& params,
                                            std::chrono::system_clock::time_point now, header_signature& out) {
  if (auto v = detail::validate(req, creds, params); !v) return v;
  if (req.payload_hash.empty()) return detail::invalid("sigv4: empty payload hash");

  auto const date = format_amz_date(now);
  out.x_amz_date.assign(date.data(), date.size());
  bool const has_token = !creds.session_token.empty();
  out.security_token.assign(has_token ? creds.session_token : std::string_view{});
  out.content_sha256.assign(params.content_sha256_header ? req.payload_hash : std::string_view{});

  headers_.clear();
  bool has_host = false;
  for (std::size_t i = 0; i < req.headers.size(); ++i) {
    std::string_view const name = detail::trim(req.headers[i].name);
    if (detail::iequals(name, authorization_header) || detail::iequals(name, amz_date_header) ||
        (has_token && detail::iequals(name, security_token_header)) ||
        (params.content_sha256_header && detail::iequals(name, content_sha256_header)))
      continue;
    has_host = has_host || detail::iequals(name, "host");
    headers_.push_back({name, req.headers[i].value, static_cast<std::uint32_t>(i)});
  }
  if (!has_host) return detail::invalid("sigv4: no Host header to sign");
  auto const extra = static_cast<std::uint32_t>(req.headers.size());
  headers_.push_back({amz_date_header, out.x_amz_date, extra});
  if (has_token && params.sign_session_token) headers_.push_back({security_token_header, out.security_token, extra});
  if (params.content_sha256_header) headers_.push_back({content_sha256_header, out.content_sha256, extra});

  std::string& cr = out.canonical_request;
  cr.clear();
  cr += req.method;
  cr += '\n';
  append_canonical_uri(cr, req.path, params.path);
  cr += '\n';
  query_.assign(req.query.begin(), req.query.end());
  append_canonical_query(cr, query_);
  cr += '\n';
  canonical_headers(cr, out.signed_headers);
  cr += '\n';
  cr += out.signed_headers;
  cr += '\n';
  cr += req.payload_hash;

  std::string_view const amz_date(out.x_amz_date);
  finish(amz_date, creds, params, cr, out.string_to_sign, out.signature);

  std::string& a = out.authorization;
  a.clear();
  a += algorithm;
  a += " Credential=";
  a += creds.access_key_id;
  a += '/';
  detail::append_scope(a, amz_date, params.region, params.service);
  a += ", SignedHeaders=";
  a += out.signed_headers;
  a += ", Signature=";
  a += out.signature;
  return {};
}

FLOE_DECL result<void> signer::presign(request_view const& req, credentials_view const& creds,
                                       signing_params const& params, std::chrono::system_clock::time_point now,
                                       std::chrono::seconds expires, presigned_query& out) {
  if (auto v = detail::validate(req, creds, params); !v) return v;
  if (expires < min_presign_expiry || expires > max_presign_expiry)
    return detail::invalid("sigv4: presigned URL expiry must be between 1 second and 7 days");
  std::string_view const payload_hash = req.payload_hash.empty() ? unsigned_payload : req.payload_hash;

  headers_.clear();
  bool has_host = false;
  for (std::size_t i = 0; i < req.headers.size(); ++i) {
    std::string_view const name = detail::trim(req.headers[i].name);
    if (detail::iequals(name, authorization_header)) continue;
    has_host = has_host || detail::iequals(name, "host");
    headers_.push_back({name, req.headers[i].value, static_cast<std::uint32_t>(i)});
  }
  if (!has_host) return detail::invalid("sigv4: no Host header to sign");

  // The canonical headers come after the query in the canonical request but
  // the signed-header list goes into the query: build them first, in
  // string_to_sign, which is free until the end.
  std::string& headers_text = out.string_to_sign;
  headers_text.clear();
  canonical_headers(headers_text, out.signed_headers);

  auto const date = format_amz_date(now);
  std::string_view const amz_date(date.data(), date.size());
  char expires_text[24];
  auto const expires_end = std::to_chars(expires_text, expires_text + sizeof expires_text, expires.count()).ptr;

  // The auth parameters, in botocore's order; remember where each value is.
  std::string& q = out.query;
  q.clear();
  struct span_at {
    std::size_t begin, end;
  };
  auto param = [&q](std::string_view name) -> std::size_t {
    if (!q.empty()) q += '&';
    q += name;
    q += '=';
    return q.size();
  };
  span_at alg, cred, dt, exp, sh, tok{0, 0};
  alg.begin = param("X-Amz-Algorithm");
  q += algorithm;
  alg.end = q.size();
  cred.begin = param("X-Amz-Credential");
  uri_encode_append(q, creds.access_key_id, true);
  q += "%2F";
  q += amz_date.substr(0, 8);
  q += "%2F";
  uri_encode_append(q, params.region, true);
  q += "%2F";
  uri_encode_append(q, params.service, true);
  q += "%2Faws4_request";
  cred.end = q.size();
  dt.begin = param("X-Amz-Date");
  q += amz_date;
  dt.end = q.size();
  exp.begin = param("X-Amz-Expires");
  q.append(expires_text, expires_end);
  exp.end = q.size();
  sh.begin = param("X-Amz-SignedHeaders");
  uri_encode_append(q, out.signed_headers, true);
  sh.end = q.size();
  bool const has_token = !creds.session_token.empty();
  if (has_token) {
    tok.begin = param("X-Amz-Security-Token");
    uri_encode_append(q, creds.session_token, true);
    tok.end = q.size();
  }

  std::string_view const qv(q);
  auto view = [qv](span_at s) { return qv.substr(s.begin, s.end - s.begin); };
  query_.assign(req.query.begin(), req.query.end());
  query_.push_back({"X-Amz-Algorithm", view(alg)});
  query_.push_back({"X-Amz-Credential", view(cred)});
  query_.push_back({"X-Amz-Date", view(dt)});
  query_.push_back({"X-Amz-Expires", view(exp)});
  query_.push_back({"X-Amz-SignedHeaders", view(sh)});
  if (has_token && params.sign_session_token) query_.push_back({"X-Amz-Security-Token", view(tok)});

  std::string& cr = out.canonical_request;
  cr.clear();
  cr += req.method;
  cr += '\n';
  append_canonical_uri(cr, req.path, params.path);
  cr += '\n';
  append_canonical_query(cr, query_);
  cr += '\n';
  cr += headers_text;
  cr += '\n';
  cr += out.signed_headers;
  cr += '\n';
  cr += payload_hash;

  finish(amz_date, creds, params, cr, out.string_to_sign, out.signature);
  q += "&X-Amz-Signature=";
  q += out.signature;
  return {};
}

}  // namespace floe::sigv4
