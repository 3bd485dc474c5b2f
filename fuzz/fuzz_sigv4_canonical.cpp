// Fuzz target: SigV4 canonicalisation (sigv4/uri_encode.hpp, canonical.hpp,
// signer.hpp) and the S3 request targets and queries floe signs
// (s3/addressing.hpp), checked against invariants rather than for crashes
// alone.
//
// Input: a flag byte, then fields separated by NUL: an object key (raw
// bytes), a wire path for the generic path rules, a bucket name, then any
// number of "name\x01value" query parameters (no \x01: a flag such as
// "uploads") and "\x02name\x01value" headers.
//
// Invariants:
// - uri_encode: each byte encoded once (unreserved bytes kept, '/' kept only
//   for paths, every other byte one upper-case %XX); decoding gives the
//   input back; uri_encoded_size is the size;
// - canonical URI, S3 rules: the wire path itself; decoding it gives "/" +
//   key; resolve_target's path decodes to the bucket and key it was given;
// - canonical URI, generic rules: "/" then the segments left after removing
//   empty, "." and ".." segments, each encoded once (decoding a segment
//   gives the wire segment), trailing '/' kept; canonicalising the decoded
//   result again changes nothing; without normalisation: uri_encode(path);
// - canonical query: the same for any order of the parameters; sorted by
//   (name, value); decoding gives back the parameters given; no '%' without
//   two hex digits after it; query_builder agrees (canonical(), params());
// - the signer: deterministic (a fresh signer, a warm one and its signing
//   key cache give byte-identical results); the canonical request is
//   method, canonical URI, canonical query, headers with lower-case names
//   in strictly ascending order whose values have no surrounding or doubled
//   blanks, the signed-header list naming exactly those headers, the
//   payload hash; presigned queries carry the auth parameters in botocore's
//   order, and their canonical query holds them sorted among the request's.

#include <floe/s3/addressing.hpp>
#include <floe/sigv4/canonical.hpp>
#include <floe/sigv4/signer.hpp>
#include <floe/sigv4/uri_encode.hpp>

#include "fuzz_support.hpp"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

using floe_fuzz::check;
using floe_fuzz::percent_decode;
namespace sigv4 = floe::sigv4;
namespace s3 = floe::s3;

bool upper_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F'); }

// Every byte unreserved, '/' (when allowed) or the start of "%XX" with
// upper-case hex.
bool well_encoded(std::string_view s, bool slash_allowed) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    auto const c = static_cast<unsigned char>(s[i]);
    if (sigv4::is_unreserved(c) || (c == '/' && slash_allowed)) continue;
    if (c != '%' || i + 2 >= s.size() || !upper_hex(s[i + 1]) || !upper_hex(s[i + 2])) return false;
    i += 2;
  }
  return true;
}

std::string decoded(std::string_view s) {
  std::string out;
  check(percent_decode(s, out), "a '%' without two hex digits");
  return out;
}

void check_uri_encode(std::string_view raw) {
  for (bool slash : {false, true}) {
    auto const e = sigv4::uri_encode(raw, slash);
    check(e.size() == sigv4::uri_encoded_size(raw, slash), "uri_encoded_size is not the size");
    check(well_encoded(e, !slash), "uri_encode wrote a byte unencoded or a bad escape");
    check(decoded(e) == raw, "decoding uri_encode's output does not give the input");
    std::size_t escapes = 0;
    for (unsigned char c : raw) escapes += (sigv4::is_unreserved(c) || (c == '/' && !slash)) ? 0 : 1;
    check(static_cast<std::size_t>(std::count(e.begin(), e.end(), '%')) == escapes, "a byte encoded twice or not at all");
  }
}

std::vector<std::string_view> segments(std::string_view s) {
  std::vector<std::string_view> out;
  for (auto seg : floe_fuzz::split(s, '/', s.size() + 2)) out.push_back(seg);
  return out;
}

void check_generic_uri(std::string_view wire) {
  std::string canon;
  sigv4::append_canonical_uri(canon, wire, sigv4::path_rules::generic);
  check(!canon.empty() && canon.front() == '/', "a canonical URI that does not start with '/'");
  check(well_encoded(canon, true), "a canonical URI with an unencoded byte");

  // The segments that stay: a stack over the wire path's segments.
  std::vector<std::string_view> kept;
  if (!wire.empty()) {
    for (auto seg : segments(wire)) {
      if (seg.empty() || seg == ".") continue;
      if (seg == "..") {
        if (!kept.empty()) kept.pop_back();
        continue;
      }
      kept.push_back(seg);
    }
  }
  auto const parts = segments(std::string_view(canon).substr(1));
  bool const trailing = !kept.empty() && !wire.empty() && wire.back() == '/';
  if (kept.empty()) {
    check(canon == "/", "a path of no segments is not '/'");
  } else {
    check(parts.size() == kept.size() + (trailing ? 1 : 0), "a canonical URI with the wrong number of segments");
    for (std::size_t i = 0; i < kept.size(); ++i) {
      check(!parts[i].empty(), "an empty segment in a canonical URI");
      check(well_encoded(parts[i], false), "a '/' left unencoded inside a segment");
      check(decoded(parts[i]) == kept[i], "a segment does not decode to the wire segment");
    }
    if (trailing) check(parts.back().empty(), "the trailing '/' was lost");
  }
  // Normalising is idempotent: the decoded result canonicalises to itself.
  std::string again;
  sigv4::append_canonical_uri(again, decoded(canon), sigv4::path_rules::generic);
  check(again == canon, "canonicalising a canonical URI again changed it");
  // Into a buffer that already holds text: only appended to.
  std::string prefixed = "x/y/";
  sigv4::append_canonical_uri(prefixed, wire, sigv4::path_rules::generic);
  check(prefixed == "x/y/" + canon, "append_canonical_uri touched what was before it");

  std::string plain;
  sigv4::append_canonical_uri(plain, wire, sigv4::path_rules::generic_unnormalized);
  check(plain == (wire.empty() ? std::string("/") : sigv4::uri_encode(wire, false)), "unnormalised canonical URI");
}

void check_s3_path(std::string_view key, std::string_view bucket) {
  std::string const wire = "/" + sigv4::uri_encode(key, false);
  std::string canon;
  sigv4::append_canonical_uri(canon, wire, sigv4::path_rules::s3);
  check(canon == wire, "the S3 canonical URI is not the wire path");
  check(decoded(canon) == "/" + std::string(key), "the S3 canonical URI does not decode to the key");

  s3::addressing_config cfg;
  cfg.region = "us-east-1";
  auto ep = s3::parse_endpoint_url("http://127.0.0.1:9000");
  check(ep.has_value(), "endpoint");
  cfg.custom_endpoint = *ep;
  cfg.style = s3::addressing_style::path;
  auto t = s3::resolve_target(cfg, bucket, key);
  if (t) {
    check(well_encoded(t->path, true), "a target path with an unencoded byte");
    check(decoded(t->path) == "/" + std::string(bucket) + "/" + std::string(key), "a path-style target does not decode");
    check(t->path.size() > bucket.size() && t->path.substr(t->path.size() - wire.size() + 1) == wire.substr(1),
          "a path-style target does not end in the key's wire path");
  }
  s3::addressing_config aws;
  aws.region = "eu-west-1";
  aws.style = s3::addressing_style::virtual_hosted;
  auto v = s3::resolve_target(aws, bucket, key);
  if (v && v->virtual_hosted) {
    check(v->path == wire, "a virtual-hosted target's path is not the key's wire path");
  } else if (v) {
    check(decoded(v->path) == "/" + std::string(bucket) + "/" + std::string(key), "a path-style target does not decode");
  }
}

struct raw_param {
  std::string name, value;
  bool flag = false;
};

void check_query(std::vector<raw_param> const& raw, std::string& canonical_out) {
  std::vector<std::pair<std::string, std::string>> enc;
  for (auto const& p : raw) enc.emplace_back(sigv4::uri_encode(p.name, true), sigv4::uri_encode(p.value, true));
  std::vector<sigv4::query_param_view> views;
  for (auto const& [n, v] : enc) views.push_back({n, v});
  std::string q1;
  sigv4::append_canonical_query(q1, views);
  std::reverse(views.begin(), views.end());
  std::string q2;
  sigv4::append_canonical_query(q2, views);
  check(q1 == q2, "the canonical query depends on the parameters' order");

  std::vector<std::pair<std::string, std::string>> back;
  if (!raw.empty()) {
    std::pair<std::string_view, std::string_view> prev;
    bool first = true;
    for (auto item : floe_fuzz::split(q1, '&', raw.size() + 2)) {
      auto const eq = item.find('=');
      check(eq != std::string_view::npos && item.find('=', eq + 1) == std::string_view::npos,
            "a canonical query item without exactly one '='");
      auto const n = item.substr(0, eq);
      auto const v = item.substr(eq + 1);
      check(well_encoded(n, false) && well_encoded(v, false), "a canonical query item with an unencoded byte");
      if (!first) check(prev < std::pair(n, v) || prev == std::pair(n, v), "the canonical query is not sorted");
      prev = {n, v};
      first = false;
      back.emplace_back(decoded(n), decoded(v));
    }
  } else {
    check(q1.empty(), "a canonical query for no parameters");
  }
  std::vector<std::pair<std::string, std::string>> want;
  for (auto const& p : raw) want.emplace_back(p.name, p.value);
  std::sort(want.begin(), want.end());
  std::sort(back.begin(), back.end());
  check(back == want, "the canonical query does not decode to the parameters given");

  s3::query_builder qb;
  for (auto const& p : raw) {
    if (p.flag) qb.add_flag(p.name);
    else qb.add(p.name, p.value);
  }
  check(qb.canonical() == q1, "query_builder's canonical query differs from the signer's");
  auto pv = qb.params();
  std::string q3;
  sigv4::append_canonical_query(q3, pv);
  check(q3 == q1, "query_builder's parameters canonicalise differently");
  std::string wire = "/k";
  qb.append_to(wire);
  check(wire == (raw.empty() ? std::string("/k") : "/k?" + qb.str()), "query_builder's wire form");
  canonical_out = q1;
}

std::vector<std::string_view> lines(std::string_view s) { return floe_fuzz::split(s, '\n', 100000); }

bool token_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

// Checks the canonical headers part of a canonical request: lines [from,
// blank) and the signed-header list after the blank line.
std::size_t check_headers(std::vector<std::string_view> const& l, std::size_t from, std::string_view signed_headers) {
  std::string names;
  std::string prev;
  std::size_t i = from;
  for (; i < l.size() && !l[i].empty(); ++i) {
    auto const colon = l[i].find(':');
    check(colon != std::string_view::npos && colon > 0, "a canonical header line without a name");
    auto const name = l[i].substr(0, colon);
    auto const value = l[i].substr(colon + 1);
    check(name == lower(name), "a canonical header name is not lower case");
    check(prev.empty() || prev < name, "canonical headers are not in strictly ascending order");
    prev = std::string(name);
    for (char c : value) check(c != '\t' && c != '\r' && c != '\v' && c != '\f', "a raw blank in a canonical header value");
    check(value.empty() || (value.front() != ' ' && value.back() != ' '), "a canonical header value is not trimmed");
    check(value.find("  ") == std::string_view::npos, "a canonical header value keeps a run of blanks");
    if (!names.empty()) names += ';';
    names += name;
  }
  check(i < l.size(), "a canonical request without the blank line after its headers");
  check(names == signed_headers, "the signed-header list does not name the canonical headers");
  check(names.find("host") != std::string::npos, "Host is not signed");
  return i + 1;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
  if (size == 0) return 0;
  unsigned const flags = data[0];
  std::string_view const rest(reinterpret_cast<char const*>(data) + 1, size - 1);
  auto const f = floe_fuzz::split(rest, '\0', 64);
  std::string_view const key = f[0];
  std::string_view const wire = f.size() > 1 ? f[1] : std::string_view();
  std::string_view const bucket = f.size() > 2 ? f[2] : std::string_view("bucket");

  std::vector<raw_param> params;
  std::vector<std::pair<std::string, std::string>> headers;
  for (std::size_t i = 3; i < f.size(); ++i) {
    auto field = f[i];
    bool const header = !field.empty() && field.front() == '\x02';
    if (header) field.remove_prefix(1);
    auto const sep = field.find('\x01');
    std::string name(field.substr(0, sep));
    std::string value(sep == std::string_view::npos ? std::string_view() : field.substr(sep + 1));
    if (header) {
      // Names as the HTTP layer lets them through: tokens.
      if (name.empty() || !std::all_of(name.begin(), name.end(), token_char)) continue;
      headers.emplace_back(std::move(name), std::move(value));
    } else {
      params.push_back({std::move(name), std::move(value), sep == std::string_view::npos});
    }
  }

  check_uri_encode(key);
  check_uri_encode(wire);
  check_generic_uri(wire);
  check_generic_uri(key);
  check_s3_path(key, bucket);
  std::string canonical_query;
  check_query(params, canonical_query);

  // The whole signer.
  bool const s3_rules = (flags & 1) != 0;
  bool const token = (flags & 2) != 0;
  bool const presign = (flags & 4) != 0;
  auto sp = s3_rules ? sigv4::signing_params::s3("us-east-1") : sigv4::signing_params::generic("us-east-1", "sts");
  sp.sign_session_token = (flags & 8) == 0;
  std::string const path = s3_rules ? "/" + sigv4::uri_encode(key, false) : std::string(wire);

  std::vector<std::pair<std::string, std::string>> enc;
  for (auto const& p : params) enc.emplace_back(sigv4::uri_encode(p.name, true), sigv4::uri_encode(p.value, true));
  std::vector<sigv4::query_param_view> q;
  for (auto const& [n, v] : enc) q.push_back({n, v});
  std::vector<sigv4::header_view> h;
  bool has_host = false;
  for (auto const& [n, v] : headers) {
    h.push_back({n, v});
    has_host = has_host || lower(n) == "host";
  }
  if (!has_host) h.push_back({"Host", "example.amazonaws.com"});
  sigv4::request_view const req{"PUT", path, q, h, sigv4::empty_payload_sha256};
  sigv4::credentials_view const creds{"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
                                      token ? std::string_view("session/token+x=") : std::string_view()};
  auto const now = std::chrono::system_clock::time_point(std::chrono::seconds(1440938160));

  std::string canon_uri;
  sigv4::append_canonical_uri(canon_uri, path, sp.path);

  sigv4::signer warm;
  if (!presign) {
    sigv4::header_signature a, b, c;
    auto ra = warm.sign_headers(req, creds, sp, now, a);
    auto rb = warm.sign_headers(req, creds, sp, now, b);
    sigv4::signer fresh;
    auto rc = fresh.sign_headers(req, creds, sp, now, c);
    check(ra.has_value() && rb.has_value() && rc.has_value(), "a request with a Host header was refused");
    check(a.canonical_request == b.canonical_request && a.canonical_request == c.canonical_request,
          "the canonical request is not deterministic");
    check(a.signature == b.signature && a.signature == c.signature && a.authorization == c.authorization,
          "the signature is not deterministic");
    auto const l = lines(a.canonical_request);
    check(l.size() >= 6 && l[0] == "PUT", "canonical request: method");
    check(l[1] == canon_uri, "canonical request: URI");
    check(l[2] == canonical_query, "canonical request: query");
    auto const after = check_headers(l, 3, a.signed_headers);
    check(after + 2 == l.size() && l[after] == a.signed_headers && l[after + 1] == sigv4::empty_payload_sha256,
          "canonical request: signed headers and payload hash");
    check(a.signed_headers.find("x-amz-date") != std::string::npos, "X-Amz-Date is not signed");
  } else {
    sigv4::presigned_query a, b, c;
    auto ra = warm.presign(req, creds, sp, now, std::chrono::seconds(3600), a);
    auto rb = warm.presign(req, creds, sp, now, std::chrono::seconds(3600), b);
    sigv4::signer fresh;
    auto rc = fresh.presign(req, creds, sp, now, std::chrono::seconds(3600), c);
    check(ra.has_value() && rb.has_value() && rc.has_value(), "a request with a Host header was refused");
    check(a.query == b.query && a.query == c.query && a.canonical_request == c.canonical_request,
          "presigning is not deterministic");
    static constexpr std::string_view order[] = {"X-Amz-Algorithm", "X-Amz-Credential", "X-Amz-Date",
                                                 "X-Amz-Expires", "X-Amz-SignedHeaders", "X-Amz-Security-Token",
                                                 "X-Amz-Signature"};
    std::size_t o = 0;
    std::vector<raw_param> all = params;
    for (auto item : floe_fuzz::split(a.query, '&', 16)) {
      auto const eq = item.find('=');
      check(eq != std::string_view::npos, "a presigned parameter without '='");
      auto const n = item.substr(0, eq);
      if (n == "X-Amz-Security-Token" && !token) check(false, "a session token parameter without a token");
      while (o < std::size(order) && order[o] != n) ++o;
      check(o < std::size(order), "presigned parameters out of order");
      check(well_encoded(item.substr(eq + 1), false), "a presigned value with an unencoded byte");
      if (n != "X-Amz-Signature" && (n != "X-Amz-Security-Token" || sp.sign_session_token))
        all.push_back({std::string(n), decoded(item.substr(eq + 1)), false});
    }
    check(o == std::size(order) - 1, "no X-Amz-Signature last");
    auto const l = lines(a.canonical_request);
    check(l.size() >= 6 && l[0] == "PUT" && l[1] == canon_uri, "presigned canonical request: method and URI");
    std::string with_auth;
    check_query(all, with_auth);
    check(l[2] == with_auth, "presigned canonical query");
    auto const after = check_headers(l, 3, a.signed_headers);
    check(after + 2 == l.size() && l[after] == a.signed_headers && l[after + 1] == sigv4::empty_payload_sha256,
          "presigned canonical request: signed headers and payload hash");
  }
  return 0;
}
