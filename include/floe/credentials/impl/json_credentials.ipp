#pragma once
#include <floe/credentials/json_credentials.hpp>

#include <simdjson.h>

#include <string>

namespace floe::credentials {

FLOE_DECL result<credentials> parse_json_credentials(std::string_view text, json_credentials_kind kind,
                                                     std::string_view what) {
  std::string const src(what);
  auto bad = [&](std::string why) { return error(errc::malformed_reply, src + ": " + why); };
  if (text.size() > 64 * 1024) return error(errc::reply_too_large, src + ": the credentials document is larger than 64 KiB");
  simdjson::dom::parser parser;
  simdjson::padded_string padded(text.data(), text.size());
  simdjson::dom::element doc;
  if (parser.parse(padded).get(doc) != simdjson::SUCCESS) return bad("the reply is not JSON");
  simdjson::dom::object obj;
  if (doc.get(obj) != simdjson::SUCCESS) return bad("the reply is not a JSON object");

  auto string_field = [&](char const* name, bool required, std::string& out) -> result<bool> {
    simdjson::dom::element e;
    if (obj.at_key(name).get(e) != simdjson::SUCCESS || e.is_null()) {
      if (required) return bad(std::string("no ") + name);
      return false;
    }
    std::string_view v;
    if (e.get(v) != simdjson::SUCCESS) return bad(std::string(name) + " is not a string");
    if (v.empty()) {
      if (required) return bad(std::string(name) + " is empty");
      return false;
    }
    out.assign(v.data(), v.size());
    return true;
  };

  if (kind == json_credentials_kind::process) {
    simdjson::dom::element v;
    if (obj.at_key("Version").get(v) != simdjson::SUCCESS) return bad("no Version (must be 1)");
    std::int64_t n = 0;
    if (v.get(n) != simdjson::SUCCESS || n != 1) return bad("Version is not 1 (the only version defined)");
  }
  if (kind == json_credentials_kind::imds) {
    std::string code;
    auto has = string_field("Code", false, code);
    if (!has) return has.error();
    if (*has && code != "Success") return bad("Code is not Success");
  }
  credentials c;
  std::string secret, token, expiration;
  if (auto r = string_field("AccessKeyId", true, c.access_key_id); !r) return r.error();
  if (auto r = string_field("SecretAccessKey", true, secret); !r) return r.error();
  char const* token_name = kind == json_credentials_kind::process ? "SessionToken" : "Token";
  auto has_token = string_field(token_name, false, token);
  if (!has_token) return has_token.error();
  auto has_exp = string_field("Expiration", false, expiration);
  if (!has_exp) return has_exp.error();

  if (auto r = check_credential_field(c.access_key_id, src + ": AccessKeyId"); !r) return bad(r.error().diag.message);
  if (auto r = check_credential_field(secret, src + ": SecretAccessKey"); !r) return bad(r.error().diag.message);
  if (*has_token)
    if (auto r = check_credential_field(token, src + ": " + token_name); !r) return bad(r.error().diag.message);
  if (*has_exp) {
    auto t = parse_iso8601(expiration);
    if (!t) return bad("Expiration is not an ISO 8601 time");
    c.expiry = *t;
  }
  c.secret_access_key = secret_string(std::move(secret));
  if (*has_token) c.session_token = secret_string(std::move(token));
  return c;
}

}  // namespace floe::credentials
