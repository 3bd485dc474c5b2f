#pragma once
#include <floe/service/diagnostics.hpp>

#include <floe/http/error_words.hpp>

namespace floe::service {

FLOE_DECL error transport_error(error cause, errc stop, unsigned attempts) {
  error e = std::move(cause);
  // A failure with no words of its own (a reset, a closed connection) says
  // the operating system's reason.
  if (e.diag.message.empty()) e.diag.message = http::error_reason(e.code);
  e.diag.attempt = attempts;
  if (stop == errc::unknown_outcome) {
    e.code = make_error_code(errc::unknown_outcome);
    e.diag.message.insert(0, "the reply to a conditional write was lost: ");
  } else if (stop != errc::ok && stop != errc::attempts_exhausted && stop != errc::transient) {
    if (!e.diag.message.empty()) e.diag.message += "; ";
    e.diag.message += attempts > 1 ? "not retried further: " : "not retried: ";
    e.diag.message += make_error_code(stop).message();
  }
  return e;
}

FLOE_DECL void add_stop_reason(error& e, errc stop, unsigned attempts) {
  e.diag.attempt = attempts;
  if (stop == errc::unknown_outcome) {
    e.code = make_error_code(errc::unknown_outcome);
    return;
  }
  if (stop == errc::ok || stop == errc::attempts_exhausted || make_error_code(stop) == e.code) return;
  if (!e.diag.message.empty()) e.diag.message += "; ";
  e.diag.message += attempts > 1 ? "not retried further: " : "not retried: ";
  e.diag.message += make_error_code(stop).message();
}

FLOE_DECL std::string resource_name(std::string_view resource, std::optional<std::string_view> key) {
  std::string r(resource);
  if (key) {
    r += '/';
    r += *key;
  }
  return r;
}

FLOE_DECL void add_context(error& e, std::string_view operation, std::string_view resource,
                           std::optional<std::string_view> key) {
  if (e.diag.operation.empty()) e.diag.operation = std::string(operation);
  if (e.diag.resource.empty()) e.diag.resource = resource_name(resource, key);
}

FLOE_DECL void add_declined_refresh(error& e, std::string_view source) {
  if (!e.diag.message.empty()) e.diag.message += "; ";
  e.diag.message += "credentials from ";
  e.diag.message += source;
  e.diag.message += " were refreshed recently without curing this; not retried while that refresh backs off";
}

FLOE_DECL std::string duration_words(std::chrono::nanoseconds d) {
  auto const ms = std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
  if (ms < 1000) return std::to_string(ms) + " ms";
  std::string s = std::to_string(ms / 1000);
  if (auto const frac = ms % 1000; frac != 0) {
    std::string f = std::to_string(frac);
    f.insert(0, 3 - f.size(), '0');
    while (f.back() == '0') f.pop_back();
    s += '.' + f;
  }
  return s + " s";
}

FLOE_DECL error deadline_error(std::chrono::nanoseconds budget, unsigned attempts, error const& last) {
  error e(errc::timeout);
  e.diag.attempt = attempts;
  // More than one attempt is counted by the diagnostics' own words
  // ("after 3 attempts"); one is said here.
  e.diag.message = "deadline of " + duration_words(budget) + " ran out";
  if (attempts <= 1) e.diag.message += attempts == 1 ? " during the first attempt" : " before the first attempt";
  if (last.code && last.code != make_error_code(errc::timeout)) {
    std::string said = last.diag.message.empty() ? last.code.message() : last.diag.message;
    if (last.diag.http_status != 0) said = "HTTP " + std::to_string(last.diag.http_status) + (said.empty() ? "" : " " + said);
    if (!said.empty()) e.diag.message += " (the last one: " + said + ")";
  }
  return e;
}

}  // namespace floe::service
