// Output: JSON strings, terminal-safe text, the one-line error report and
// the exit code each error maps to.

#include "cli.hpp"

#include <cerrno>
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

void report_error(global_options const& g, error e, std::string_view operation, std::string_view resource) {
  auto& d = e.diag;
  if (d.operation.empty()) d.operation = std::string(operation);
  if (d.resource.empty()) d.resource = std::string(resource);
  // A transport failure (refused, reset, TLS) carries no message of its own.
  if (d.message.empty() && d.code.empty()) d.message = e.code.message();
  std::string line;
  if (g.json) {
    line = "{\"error\":{\"kind\":";
    append_json_string(line, kind_name(e));
    line += ",\"operation\":";
    append_json_string(line, d.operation);
    line += ",\"resource\":";
    append_json_string(line, d.resource);
    line += ",\"status\":" + std::to_string(d.http_status);
    line += ",\"code\":";
    append_json_string(line, d.code);
    line += ",\"message\":";
    append_json_string(line, d.message);
    line += ",\"request_id\":";
    append_json_string(line, d.request_id);
    line += ",\"exit_code\":" + std::to_string(exit_code_for(e));
    line += "}}\n";
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
