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

}  // namespace floe::service
