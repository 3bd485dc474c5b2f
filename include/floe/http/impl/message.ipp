#pragma once
#include <floe/http/message.hpp>

namespace floe::http {

FLOE_DECL errors::kind default_classify(request const& req, response const& res) noexcept {
  using errors::kind;
  auto const s = res.status;
  auto const body = std::string_view(res.body);
  if ((s >= 200 && s < 300) || s == 304) return kind::success;
  if (body.find("<Code>RequestTimeTooSkewed</Code>") != std::string_view::npos ||
      body.find("<Code>RequestExpired</Code>") != std::string_view::npos)
    return kind::clock_skew;
  if (s == 501) return kind::unsupported;
  if (s >= 500 && req.traits.conditional_write) return kind::unknown_outcome;
  if (s == 429 || s == 503 || body.find("<Code>SlowDown</Code>") != std::string_view::npos) return kind::throttled;
  if (s >= 500) return kind::transient;
  if (s >= 300 && s < 400) return kind::redirect;
  if (s == 403) return kind::denied;
  if (s == 404) return kind::not_found;
  if (s == 409) return kind::conflict;
  if (s == 412) return kind::precondition_failed;
  return kind::client_error;
}

}  // namespace floe::http
