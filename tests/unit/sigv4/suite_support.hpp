#pragma once
// Reads the AWS SigV4 test suite (aws-c-auth's v4 folder) in place, from
// tests/data/vectors/sigv4/.

#include <floe/detail/sha256.hpp>
#include <floe/sigv4/signer.hpp>

#include <simdjson.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace suite {

namespace fs = std::filesystem;

inline fs::path vectors_dir() {
  char const* data = std::getenv("FLOE_TEST_DATA");
  return fs::path(data ? data : "tests/data") / "vectors" / "sigv4";
}

inline std::optional<std::string> read(fs::path const& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

struct header_line {
  std::string name;   // as written
  std::string value;  // raw, continuation lines joined with '\n'
};

struct http_message {
  std::string method;
  std::string target;  // path[?query], raw
  std::vector<header_line> headers;
  std::string body;

  std::string path() const { return target.substr(0, target.find('?')); }
  std::string query() const {
    auto q = target.find('?');
    return q == std::string::npos ? std::string() : target.substr(q + 1);
  }
};

// "METHOD target HTTP/1.1\nName:value\n  continuation\n\nbody". The target
// may contain spaces (get-space-*), so the version is cut off the end.
inline http_message parse_message(std::string const& text) {
  http_message m;
  std::size_t pos = text.find('\n');
  std::string line = text.substr(0, pos);
  m.method = line.substr(0, line.find(' '));
  std::string rest = line.substr(m.method.size() + 1);
  auto v = rest.rfind(" HTTP/");
  m.target = rest.substr(0, v);
  pos = pos == std::string::npos ? text.size() : pos + 1;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string l = text.substr(pos, end - pos);
    pos = end + 1;
    if (l.empty()) {
      if (pos < text.size()) m.body = text.substr(pos);
      break;
    }
    if ((l[0] == ' ' || l[0] == '\t') && !m.headers.empty()) {
      m.headers.back().value += "\n" + l;
      continue;
    }
    auto c = l.find(':');
    m.headers.push_back({l.substr(0, c), c == std::string::npos ? std::string() : l.substr(c + 1)});
  }
  while (!m.body.empty() && (m.body.back() == '\n' || m.body.back() == '\r')) m.body.pop_back();
  return m;
}

// The suite writes some query bytes raw (UTF-8) and others encoded; on the
// wire both are "%XX", which is what the signer takes.
inline std::string wire_encode(std::string_view raw) {
  std::string out;
  for (char c : raw) {
    if (c == '%') {
      out += c;
    } else {
      out += floe::sigv4::uri_encode(std::string_view(&c, 1), true);
    }
  }
  return out;
}

struct test_case {
  std::string name;
  fs::path dir;
  std::string access_key_id, secret, token;
  bool normalize = true, sign_body = false, omit_session_token = false;
  std::string region, service;
  std::chrono::system_clock::time_point time;
  long long expires = 0;
  http_message request;
};

inline std::chrono::system_clock::time_point parse_time(std::string_view s) {
  // "2015-08-30T12:36:00Z"
  auto num = [&](std::size_t at, std::size_t n) { return std::stoi(std::string(s.substr(at, n))); };
  using namespace std::chrono;
  sys_days d = year{num(0, 4)} / month{static_cast<unsigned>(num(5, 2))} / day{static_cast<unsigned>(num(8, 2))};
  return d + hours{num(11, 2)} + minutes{num(14, 2)} + seconds{num(17, 2)};
}

inline std::vector<test_case> load_cases() {
  std::vector<test_case> out;
  fs::path const dir = vectors_dir();
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  simdjson::dom::parser parser;
  for (auto const& e : fs::directory_iterator(dir)) {
    if (!fs::exists(e.path() / "context.json")) continue;
    test_case c;
    c.name = e.path().filename().string();
    c.dir = e.path();
    auto text = read(e.path() / "context.json");
    simdjson::dom::element ctx = parser.parse(*text);
    auto creds = ctx["credentials"];
    c.access_key_id = std::string(std::string_view(creds["access_key_id"]));
    c.secret = std::string(std::string_view(creds["secret_access_key"]));
    if (std::string_view tok; creds["token"].get(tok) == simdjson::SUCCESS) c.token = std::string(tok);
    c.region = std::string(std::string_view(ctx["region"]));
    c.service = std::string(std::string_view(ctx["service"]));
    c.normalize = bool(ctx["normalize"]);
    c.sign_body = bool(ctx["sign_body"]);
    if (bool b; ctx["omit_session_token"].get(b) == simdjson::SUCCESS) c.omit_session_token = b;
    c.expires = int64_t(ctx["expiration_in_seconds"]);
    c.time = parse_time(std::string_view(ctx["timestamp"]));
    c.request = parse_message(*read(e.path() / "request.txt"));
    out.push_back(std::move(c));
  }
  std::sort(out.begin(), out.end(), [](auto const& a, auto const& b) { return a.name < b.name; });
  return out;
}

// Inputs for the signer, owning the encoded query strings.
struct prepared {
  std::vector<std::pair<std::string, std::string>> query_text;
  std::vector<floe::sigv4::query_param_view> query;
  std::vector<floe::sigv4::header_view> headers;
  std::string payload_hash;
  floe::sigv4::request_view req;
  floe::sigv4::credentials_view creds;
  floe::sigv4::signing_params params;
  std::string path;
};

inline void prepare(test_case const& c, prepared& p) {
  std::string const q = c.request.query();
  std::size_t pos = 0;
  while (!q.empty() && pos <= q.size()) {
    std::size_t end = q.find('&', pos);
    if (end == std::string::npos) end = q.size();
    std::string pair = q.substr(pos, end - pos);
    pos = end + 1;
    auto eq = pair.find('=');
    p.query_text.emplace_back(wire_encode(pair.substr(0, eq)),
                              eq == std::string::npos ? std::string() : wire_encode(pair.substr(eq + 1)));
  }
  for (auto const& [n, v] : p.query_text) p.query.push_back({n, v});
  for (auto const& h : c.request.headers) p.headers.push_back({h.name, h.value});
  p.payload_hash.resize(64);
  floe::detail::hex_lower(floe::detail::sha256::of(c.request.body), p.payload_hash.data());
  p.path = c.request.path();
  p.req = {c.request.method, p.path, p.query, p.headers, p.payload_hash};
  p.creds = {c.access_key_id, c.secret, c.token};
  p.params = floe::sigv4::signing_params::generic(c.region, c.service);
  p.params.path = c.normalize ? floe::sigv4::path_rules::generic : floe::sigv4::path_rules::generic_unnormalized;
  p.params.content_sha256_header = c.sign_body;
  p.params.sign_session_token = !c.omit_session_token;
}

}  // namespace suite
