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

}  // namespace

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
