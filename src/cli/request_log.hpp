#pragma once
// The request log (-v, --debug): one line per HTTP attempt, secrets redacted.

#include "command_line.hpp"

#include <floe/http/client_config.hpp>

#include <string>
#include <string_view>

namespace floe::cli {

/// A request target (path?query as sent) with the values of signing
/// parameters (X-Amz-Signature, X-Amz-Credential, X-Amz-Security-Token,
/// Signature, AWSAccessKeyId, WebIdentityToken...) replaced by REDACTED.
std::string redact_target(std::string_view target);

/// Headers whose values are never shown: Authorization, Proxy-Authorization,
/// X-Amz-Security-Token, cookies, SSE customer keys.
bool is_secret_header(std::string_view name) noexcept;

/// -v: the line logged for one HTTP attempt (with --debug also its headers,
/// redacted). Never a body.
void log_exchange(global_options const& g, http::exchange_view const& v);

}  // namespace floe::cli
