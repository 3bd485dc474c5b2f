#pragma once
#include <floe/credentials/environment.hpp>

namespace floe::credentials {

FLOE_DECL result<std::optional<credentials>> credentials_from_environment(env_lookup const& env) {
  auto key = non_empty(env, "AWS_ACCESS_KEY_ID");
  auto secret = non_empty(env, "AWS_SECRET_ACCESS_KEY");
  if (!key && !secret) return std::optional<credentials>{};
  if (!key)
    return error(errc::invalid_argument,
                 "environment: AWS_SECRET_ACCESS_KEY is set but AWS_ACCESS_KEY_ID is not; set both or neither");
  if (!secret)
    return error(errc::invalid_argument,
                 "environment: AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not; set both or neither");
  if (auto r = check_credential_field(*key, "environment: AWS_ACCESS_KEY_ID"); !r) return r.error();
  if (auto r = check_credential_field(*secret, "environment: AWS_SECRET_ACCESS_KEY"); !r) return r.error();
  credentials c;
  c.access_key_id = std::move(*key);
  c.secret_access_key = secret_string(std::move(*secret));
  auto token = non_empty(env, "AWS_SESSION_TOKEN");
  std::string_view token_name = "AWS_SESSION_TOKEN";
  if (!token) {
    token = non_empty(env, "AWS_SECURITY_TOKEN");
    token_name = "AWS_SECURITY_TOKEN";
  }
  if (token) {
    if (auto r = check_credential_field(*token, std::string("environment: ") + std::string(token_name)); !r)
      return r.error();
    c.session_token = secret_string(std::move(*token));
  }
  if (auto exp = non_empty(env, "AWS_CREDENTIAL_EXPIRATION")) {
    auto t = parse_iso8601(*exp);
    if (!t) {
      // The expiry is not a secret: quoting it helps.
      return error(errc::invalid_argument,
                   "environment: AWS_CREDENTIAL_EXPIRATION '" + detail::printable(*exp, 64) + "': " + t.error().diag.message);
    }
    c.expiry = *t;
  }
  c.source = "environment";
  return std::optional<credentials>(std::move(c));
}

}  // namespace floe::credentials
