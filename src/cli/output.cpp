// Output: terminal-safe text, stdout, the one-line error report and the
// exit code each error maps to, the debug log.

#include "output.hpp"

#include "json_writer.hpp"

#include <cerrno>
#include <cstdio>
#include <unistd.h>

namespace floe::cli {

namespace {

constexpr char hex_digits[] = "0123456789abcdef";

// The length of the valid UTF-8 sequence at the start of `s` (0: none):
// shortest form, no surrogates, at most U+10FFFF.
std::size_t utf8_length(std::string_view s) noexcept {
  auto const b = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
  auto const cont = [&](std::size_t i) { return i < s.size() && (b(i) & 0xc0) == 0x80; };
  unsigned char const c = b(0);
  if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0;
  if (c >= 0xe0 && c <= 0xef) {
    if (!cont(1) || !cont(2)) return 0;
    if (c == 0xe0 && b(1) < 0xa0) return 0;   // overlong
    if (c == 0xed && b(1) >= 0xa0) return 0;  // surrogate
    return 3;
  }
  if (c >= 0xf0 && c <= 0xf4) {
    if (!cont(1) || !cont(2) || !cont(3)) return 0;
    if (c == 0xf0 && b(1) < 0x90) return 0;   // overlong
    if (c == 0xf4 && b(1) >= 0x90) return 0;  // beyond U+10FFFF
    return 4;
  }
  return 0;
}

void append_escaped(std::string& out, unsigned char c) {
  out += "\\x";
  out += hex_digits[c >> 4];
  out += hex_digits[c & 15];
}

}  // namespace

std::string printable(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    auto const c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if (c < 0x20 || c == 0x7f) append_escaped(out, c);
      else out += static_cast<char>(c);
      ++i;
      continue;
    }
    // Text in UTF-8 is kept; the C1 controls (U+0080..U+009F, which a
    // terminal may obey: U+009B is CSI) and bytes that are not UTF-8 (a
    // terminal in an 8-bit mode obeys a bare 0x9B too) are escaped.
    std::size_t const n = utf8_length(s.substr(i));
    bool const c1 = n == 2 && c == 0xc2 && static_cast<unsigned char>(s[i + 1]) < 0xa0;
    if (n == 0 || c1) {
      for (std::size_t j = 0; j < (n == 0 ? 1 : n); ++j) append_escaped(out, static_cast<unsigned char>(s[i + j]));
      i += n == 0 ? 1 : n;
      continue;
    }
    out.append(s.substr(i, n));
    i += n;
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
    case errc::checksum_mismatch: return "checksum_mismatch";
    case errc::invalid_receipt_handle: return "invalid_receipt_handle";
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
