// The request log (-v, --debug): one line per HTTP attempt, and with
// --debug its headers, with every secret redacted.

#include "request_log.hpp"

#include "output.hpp"

#include <chrono>

namespace floe::cli {

namespace {

bool iequal(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    auto x = static_cast<unsigned char>(a[i]), y = static_cast<unsigned char>(b[i]);
    if (x >= 'A' && x <= 'Z') x = static_cast<unsigned char>(x + 32);
    if (y >= 'A' && y <= 'Z') y = static_cast<unsigned char>(y + 32);
    if (x != y) return false;
  }
  return true;
}

bool icontains(std::string_view hay, std::string_view needle) noexcept {
  if (needle.size() > hay.size()) return false;
  for (std::size_t i = 0; i + needle.size() <= hay.size(); ++i)
    if (iequal(hay.substr(i, needle.size()), needle)) return true;
  return false;
}

// Query parameters whose values sign or authorise a request.
bool is_secret_param(std::string_view name) noexcept {
  if (iequal(name, "AWSAccessKeyId")) return true;  // SigV2 presigned URLs
  // X-Amz-Signature, X-Amz-Credential, X-Amz-Security-Token, WebIdentityToken,
  // SAMLAssertion, ...
  return icontains(name, "signature") || icontains(name, "credential") || icontains(name, "token") ||
         icontains(name, "secret") || icontains(name, "assertion") || icontains(name, "password");
}

}  // namespace

std::string redact_target(std::string_view target) {
  auto q = target.find('?');
  if (q == std::string_view::npos) return std::string(target);
  std::string out(target.substr(0, q + 1));
  std::string_view rest = target.substr(q + 1);
  bool first = true;
  while (true) {
    auto amp = rest.find('&');
    auto pair = rest.substr(0, amp);
    if (!first) out += '&';
    first = false;
    auto eq = pair.find('=');
    auto name = pair.substr(0, eq);
    if (eq != std::string_view::npos && is_secret_param(name)) {
      out += name;
      out += "=REDACTED";
    } else {
      out += pair;
    }
    if (amp == std::string_view::npos) break;
    rest.remove_prefix(amp + 1);
  }
  return out;
}

bool is_secret_header(std::string_view name) noexcept {
  return iequal(name, "Authorization") || iequal(name, "Proxy-Authorization") || iequal(name, "Cookie") ||
         iequal(name, "Set-Cookie") || icontains(name, "token") || icontains(name, "secret") ||
         icontains(name, "password") || icontains(name, "credential") || icontains(name, "customer-key");
}

void log_exchange(global_options const& g, http::exchange_view const& v) {
  if (!g.debug) return;
  std::string s = "[";
  s += v.operation.empty() ? std::string_view("request") : v.operation;
  s += " #" + std::to_string(v.attempt);
  if (v.resend) s += " resend";
  if (v.hedge) s += v.hedge_won ? " hedge won" : " hedge";
  s += "] ";
  s += v.method;
  s += ' ';
  if (v.ep != nullptr) {
    s += v.ep->tls ? "https://" : "http://";
    s += v.ep->host_header();
  }
  s += redact_target(v.target);
  s += " -> ";
  if (v.status != 0) {
    s += std::to_string(v.status);
    if (v.reply_headers != nullptr) {
      auto rid = v.reply_headers->get("x-amz-request-id");
      if (rid.empty()) rid = v.reply_headers->get("x-amzn-RequestId");
      if (!rid.empty()) {
        s += " request-id ";
        s += rid;
      }
      if (v.status / 100 == 3 || v.status == 400) {
        if (auto region = v.reply_headers->get("x-amz-bucket-region"); !region.empty()) {
          s += " bucket-region ";
          s += region;
        }
        if (auto loc = v.reply_headers->get("Location"); !loc.empty()) {
          s += " location ";
          s += redact_target(loc);
        }
      }
    }
  } else {
    s += "no reply: ";
    s += v.ec ? v.ec.message() : std::string("cut off");
  }
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(v.elapsed).count();
  s += " (" + std::to_string(ms) + " ms";
  if (v.ttfb.count() > 0) {
    auto const us = std::chrono::duration_cast<std::chrono::microseconds>(v.ttfb).count();
    s += ", ttfb " + std::to_string(us / 1000) + "." + std::to_string(us % 1000 / 100) + " ms";
  }
  s += v.reused_connection ? ", reused connection" : ", new connection";
  if (!v.peer.empty()) {
    s += " to ";
    s += v.peer;
  }
  s += ')';
  // An upload's checksum, and in which form it went (issue 31), after the
  // time so that the line's start keeps its shape. The CLI sends files and
  // buffered stdin, always in the header form; the trailer form is a
  // library caller's stream's (docs/design.md, "Integrity: uploads carry a checksum").
  if (v.request_headers != nullptr) {
    if (auto alg = v.request_headers->get("x-amz-sdk-checksum-algorithm"); !alg.empty()) {
      bool const trailer = !v.request_headers->get("x-amz-trailer").empty();
      s += " checksum ";
      s += alg;
      s += trailer ? " (trailer)" : " (header)";
    }
  }
  debug_line(g, s);
  if (!g.debug_headers) return;
  auto dump = [&](http::fields const* f, char const* dir) {
    if (f == nullptr) return;
    for (std::size_t i = 0; i < f->size(); ++i) {
      auto h = (*f)[i];
      std::string line = std::string("    ") + dir + " ";
      line += h.name;
      line += ": ";
      if (is_secret_header(h.name)) line += "REDACTED";
      else if (iequal(h.name, "Location")) line += redact_target(h.value);
      else line += h.value;
      debug_line(g, line);
    }
  };
  dump(v.request_headers, ">");
  dump(v.reply_headers, "<");
}

}  // namespace floe::cli
