// Output: JSON strings, terminal-safe text, the one-line error report and
// the exit code each error maps to.

#include "cli.hpp"

#include <array>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <unistd.h>

namespace floe::cli {

namespace {

// Length of the valid UTF-8 sequence at s[i], or 0.
std::size_t utf8_length(std::string_view s, std::size_t i) {
  auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = b(i);
  std::size_t n = 0;
  std::uint32_t cp = 0;
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
    cp = c & 0x1Fu;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    cp = c & 0x0Fu;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    cp = c & 0x07u;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xC0u) != 0x80u) return 0;
    cp = (cp << 6) | (b(i + k) & 0x3Fu);
  }
  if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF))) return 0;  // overlong / too big
  if (cp >= 0xD800 && cp <= 0xDFFF) return 0;                                          // surrogates
  return n;
}

constexpr char hex_digits[] = "0123456789abcdef";

}  // namespace

void append_json_string(std::string& out, std::string_view s) {
  out += '"';
  for (std::size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      auto n = utf8_length(s, i);
      if (n == 0) {
        out += "\\ufffd";
        ++i;
      } else {
        out.append(s.substr(i, n));
        i += n;
      }
      continue;
    }
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          out += "\\u00";
          out += hex_digits[c >> 4];
          out += hex_digits[c & 15];
        } else {
          out += static_cast<char>(c);
        }
    }
    ++i;
  }
  out += '"';
}

void json_writer::separate() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!empty_.empty()) {
    if (!empty_.back()) out_ += ',';
    empty_.back() = false;
  }
}

json_writer& json_writer::open(char c) {
  separate();
  out_ += c;
  empty_.push_back(true);
  return *this;
}

json_writer& json_writer::close(char c) {
  out_ += c;
  if (!empty_.empty()) empty_.pop_back();
  return *this;
}

json_writer& json_writer::raw(std::string_view token) {
  separate();
  out_ += token;
  return *this;
}

json_writer& json_writer::key(std::string_view k) {
  separate();
  append_json_string(out_, k);
  out_ += ':';
  after_key_ = true;
  return *this;
}

json_writer& json_writer::value(std::string_view s) {
  separate();
  append_json_string(out_, s);
  return *this;
}

json_writer& json_writer::value(bool b) { return raw(b ? "true" : "false"); }

std::string printable(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7f) {
      out += "\\x";
      out += hex_digits[c >> 4];
      out += hex_digits[c & 15];
    } else {
      out += ch;
    }
  }
  return out;
}

int exit_code_for(error const& e) noexcept {
  if (!e.code) return exit_ok;
  if (e.code.category() == floe_category()) {
    switch (static_cast<errc>(e.code.value())) {
      case errc::precondition_failed:
      case errc::conflict: return exit_condition;
      case errc::not_found: return exit_not_found;
      default: return exit_error;
    }
  }
  return exit_error;
}

std::string kind_name(error const& e) {
  if (e.code.category() != floe_category()) return "system";
  switch (static_cast<errc>(e.code.value())) {
    case errc::ok: return "ok";
    case errc::invalid_argument: return "invalid_argument";
    case errc::malformed_reply: return "malformed_reply";
    case errc::reply_too_large: return "reply_too_large";
    case errc::xml_doctype_refused: return "xml_doctype_refused";
    case errc::xml_too_deep: return "xml_too_deep";
    case errc::precondition_failed: return "precondition_failed";
    case errc::conflict: return "conflict";
    case errc::unknown_outcome: return "unknown_outcome";
    case errc::unsupported: return "unsupported";
    case errc::stale_credentials: return "stale_credentials";
    case errc::throttled: return "throttled";
    case errc::transient: return "transient";
    case errc::clock_skew: return "clock_skew";
    case errc::not_found: return "not_found";
    case errc::denied: return "denied";
    case errc::service_error: return "service_error";
    case errc::retry_quota_exhausted: return "retry_quota_exhausted";
    case errc::attempts_exhausted: return "attempts_exhausted";
    case errc::timeout: return "timeout";
    case errc::credentials_unavailable: return "credentials_unavailable";
    case errc::body_not_replayable: return "body_not_replayable";
  }
  return "error";
}

void write_error_fields(json_writer& w, error const& e) {
  auto const& d = e.diag;
  std::string const message = d.message.empty() && d.code.empty() ? e.code.message() : d.message;
  w.begin_object();
  w.field("kind", kind_name(e)).field("operation", d.operation).field("resource", d.resource);
  w.field("status", d.http_status).field("code", d.code).field("message", message);
  w.field("request_id", d.request_id).field("exit_code", exit_code_for(e));
  w.end_object();
}

void report_error(global_options const& g, error e, std::string_view operation, std::string_view resource) {
  auto& d = e.diag;
  if (d.operation.empty()) d.operation = std::string(operation);
  if (d.resource.empty()) d.resource = std::string(resource);
  // A transport failure (refused, reset, TLS) carries no message of its own.
  if (d.message.empty() && d.code.empty()) d.message = e.code.message();
  std::string line;
  if (g.json) {
    json_writer w;
    w.begin_object().key("error");
    write_error_fields(w, e);
    w.end_object();
    line = w.line();
  } else {
    line = "floe: error: " + printable(d.to_string());
    if (e.code.category() == floe_category() && static_cast<errc>(e.code.value()) == errc::unknown_outcome)
      line += " [outcome unknown: the write may or may not have happened]";
    line += '\n';
  }
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}

void report_usage(std::string_view verb, std::string_view message) {
  std::string line = "floe";
  if (!verb.empty()) {
    line += ' ';
    line += verb;
  }
  line += ": ";
  line += message;
  line += " (see 'floe ";
  if (!verb.empty()) {
    line += verb;
    line += ' ';
  }
  line += "--help')\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
}

void debug_line(global_options const& g, std::string_view line) {
  if (!g.debug) return;
  std::string s = "floe: debug: ";
  s += printable(line);
  s += '\n';
  std::fwrite(s.data(), 1, s.size(), stderr);
  std::fflush(stderr);
}

bool write_stdout(std::string_view s) {
  while (!s.empty()) {
    auto n = ::write(1, s.data(), s.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    s.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

}  // namespace floe::cli

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
  s += v.reused_connection ? ", reused connection)" : ", new connection)";
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
