// Signs the requests that tests/unit/sigv4/botocore_diff.py generates, one per
// line of stdin, and prints what it would send, one line per request. Every
// field is hex so that any byte survives. It does the encoding itself (keys
// with uri_encode(key, false), query names and values with
// uri_encode(x, true)), so the comparison covers that too.
//
// in:  mode method host path_prefix key region akid secret token expires
//      payload nquery (name value)* nheaders (name value)*
//      mode: "h" S3 header signing, "q" S3 presigned, "g" header signing for
//      a generic service ("sqs": generic path rules, no X-Amz-Content-SHA256); payload: "U" (unsigned) or
//      "B" + body; token empty for none.
// out: h: authorization x-amz-date x-amz-security-token x-amz-content-sha256 canonical-request
//      q: url canonical-request
//      or "error <message>" (hex-free).

#include <floe/detail/sha256.hpp>
#include <floe/sigv4/signer.hpp>
#include <floe/sigv4/uri_encode.hpp>

#include <chrono>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string unhex(std::string_view h) {
  auto v = [](char c) { return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; };
  std::string out;
  for (std::size_t i = 0; i + 1 < h.size(); i += 2) out += static_cast<char>(v(h[i]) * 16 + v(h[i + 1]));
  return out;
}

std::string tohex(std::string_view s) {
  constexpr char d[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    out += d[c >> 4];
    out += d[c & 15];
  }
  return out;
}

}  // namespace

int main() {
  using namespace floe::sigv4;
  signer s;  // one signer for all requests: exercises the cache and buffer reuse
  header_signature hs;
  presigned_query pq;
  // The time: 2024-05-17T08:09:10Z plus the offset (seconds) on each line.
  auto const base = std::chrono::sys_days{std::chrono::year{2024} / 5 / 17} + std::chrono::hours{8} +
                    std::chrono::minutes{9} + std::chrono::seconds{10};
  std::string line;
  while (std::getline(std::cin, line)) {
    std::vector<std::string> f;
    std::istringstream in(line);
    for (std::string tok; std::getline(in, tok, '\t');) f.push_back(tok);
    std::size_t i = 0;
    auto next = [&]() -> std::string { return i < f.size() ? f[i++] : std::string(); };
    std::string const mode = next();
    std::string const time_offset = next();
    std::string const method = unhex(next()), host = unhex(next()), prefix = unhex(next()), key = unhex(next());
    std::string const region = unhex(next()), akid = unhex(next()), secret = unhex(next()), token = unhex(next());
    long const expires = std::stol(next());
    std::string const payload = next();

    std::size_t const nq = std::stoul(next());
    std::vector<std::pair<std::string, std::string>> qtext;
    for (std::size_t k = 0; k < nq; ++k) {
      std::string n = unhex(next());
      std::string v = unhex(next());
      qtext.emplace_back(uri_encode(n, true), uri_encode(v, true));
    }
    std::vector<query_param_view> query;
    for (auto const& [n, v] : qtext) query.push_back({n, v});

    std::size_t const nh = std::stoul(next());
    std::vector<std::pair<std::string, std::string>> htext{{"host", host}};
    for (std::size_t k = 0; k < nh; ++k) {
      std::string n = unhex(next());
      std::string v = unhex(next());
      htext.emplace_back(n, v);
    }
    std::vector<header_view> headers;
    for (auto const& [n, v] : htext) headers.push_back({n, v});

    std::string const path = prefix + uri_encode(key, false);
    std::string payload_hash;
    if (payload == "U") {
      payload_hash = unsigned_payload;
    } else {
      payload_hash.resize(64);
      floe::detail::hex_lower(floe::detail::sha256::of(unhex(std::string_view(payload).substr(1))),
                              payload_hash.data());
    }
    request_view req{method, path, query, headers, payload_hash};
    credentials_view creds{akid, secret, token};
    auto const params = mode == "g" ? signing_params::generic(region, "sqs") : signing_params::s3(region);
    auto const now = base + std::chrono::seconds(std::stol(time_offset));

    if (mode == "h" || mode == "g") {
      auto r = s.sign_headers(req, creds, params, now, hs);
      if (!r) {
        std::cout << "error " << r.error().diag.message << "\n";
        continue;
      }
      std::cout << tohex(hs.authorization) << '\t' << tohex(hs.x_amz_date) << '\t' << tohex(hs.security_token)
                << '\t' << tohex(hs.content_sha256) << '\t' << tohex(hs.canonical_request) << '\n';
    } else {
      auto r = s.presign(req, creds, params, now, std::chrono::seconds(expires), pq);
      if (!r) {
        std::cout << "error " << r.error().diag.message << "\n";
        continue;
      }
      std::string url = "https://" + host + path + "?";
      for (auto const& [n, v] : qtext) url += n + "=" + v + "&";
      url += pq.query;
      std::cout << tohex(url) << '\t' << tohex(pq.canonical_request) << '\n';
    }
  }
  return 0;
}
