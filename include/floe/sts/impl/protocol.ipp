#pragma once
#include <floe/sts/protocol.hpp>

#include <floe/errors/classify.hpp>
#include <floe/http/url.hpp>
#include <floe/sigv4/uri_encode.hpp>
#include <floe/xml/document.hpp>

namespace floe::sts {

namespace detail {

inline void form_add(std::string& body, std::string_view name, std::string_view value) {
  if (!body.empty()) body += '&';
  body += name;
  body += '=';
  sigv4::uri_encode_append(body, value, true);
}

inline bool session_name_ok(std::string_view n) noexcept {
  if (n.size() < 2 || n.size() > 64) return false;
  for (char c : n) {
    bool const ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                    c == '+' || c == '=' || c == ',' || c == '.' || c == '@' || c == '-';
    if (!ok) return false;
  }
  return true;
}

inline result<void> check_role(std::string_view role_arn, std::string_view session) {
  if (role_arn.empty()) return error(errc::invalid_argument, "STS: the role ARN is empty");
  if (!session_name_ok(session))
    return error(errc::invalid_argument, "STS: role session name '" + credentials::detail::printable(session, 80) +
                                             "' must be 2 to 64 characters of [A-Za-z0-9_+=,.@-]");
  return {};
}

inline void add_common(std::string& body, std::string_view role_arn, std::string_view session,
                       std::chrono::seconds duration, std::string_view policy) {
  form_add(body, "RoleArn", role_arn);
  form_add(body, "RoleSessionName", session);
  if (duration.count() > 0) form_add(body, "DurationSeconds", std::to_string(duration.count()));
  if (!policy.empty()) form_add(body, "Policy", policy);
}

inline error malformed(std::string what) { return error(errc::malformed_reply, "STS reply: " + std::move(what)); }

}  // namespace detail

FLOE_DECL result<endpoint_config> resolve_endpoint(endpoint_params const& p, endpoints::resolver const& resolver,
                                                  std::string_view region_in, std::string_view region_source) {
  std::string region = p.region;
  std::string region_from = "the STS client configuration";
  if (region.empty()) {
    region = std::string(region_in);
    region_from = std::string(region_source);
  }
  for (char c : region) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'))
      return error(errc::invalid_argument,
                   "STS: region '" + credentials::detail::printable(region, 64) + "' from " + region_from +
                       " has characters outside [a-z0-9-]");
  }
  endpoint_config out;
  out.signing_region = region.empty() ? "us-east-1" : region;
  auto conf = resolver.configured("sts", p.endpoint_url);
  if (!conf) {
    auto e = conf.error();
    e.diag.message = "STS: " + e.diag.message;
    return e;
  }
  if (*conf) {
    auto const& c = **conf;
    out.source = c.source == "caller" ? "the STS client configuration" : c.source;
    if (!c.ep.base_path.empty())
      return error(errc::invalid_argument, "STS: endpoint URL '" + credentials::detail::printable(c.ep.url(), 200) +
                                               "' from " + out.source + " is not http(s)://host[:port][/]");
    out.url = c.ep.url();
    return out;
  }
  auto aws = resolver.resolve("sts", region, {}, region_from);
  if (!aws) return aws.error();
  out.url = aws->ep.url();
  out.signing_region = aws->signing_region;
  out.source = region.empty() ? "global (no region configured)" : "regional (region from " + region_from + ")";
  return out;
}

FLOE_DECL result<endpoint_config> resolve_endpoint(endpoint_params const& p, credentials::env_lookup const& env) {
  std::string region, region_from;
  if (auto r = credentials::non_empty(env, "AWS_REGION")) {
    region = *r;
    region_from = "AWS_REGION";
  } else if (auto d = credentials::non_empty(env, "AWS_DEFAULT_REGION")) {
    region = *d;
    region_from = "AWS_DEFAULT_REGION";
  }
  auto resolver = endpoints::resolver::create(env);
  if (!resolver) return resolver.error();
  return resolve_endpoint(p, *resolver, region, region_from);
}

FLOE_DECL result<std::string> web_identity_body(web_identity_request const& r) {
  if (auto ok = detail::check_role(r.role_arn, r.role_session_name); !ok) return ok.error();
  if (r.web_identity_token.empty()) return error(errc::invalid_argument, "STS: the web identity token is empty");
  std::string body;
  detail::form_add(body, "Action", "AssumeRoleWithWebIdentity");
  detail::form_add(body, "Version", "2011-06-15");
  detail::add_common(body, r.role_arn, r.role_session_name, r.duration, r.policy);
  detail::form_add(body, "WebIdentityToken", r.web_identity_token);
  return body;
}

FLOE_DECL result<std::string> assume_role_body(assume_role_request const& r) {
  if (auto ok = detail::check_role(r.role_arn, r.role_session_name); !ok) return ok.error();
  std::string body;
  detail::form_add(body, "Action", "AssumeRole");
  detail::form_add(body, "Version", "2011-06-15");
  detail::add_common(body, r.role_arn, r.role_session_name, r.duration, r.policy);
  if (!r.external_id.empty()) detail::form_add(body, "ExternalId", r.external_id);
  return body;
}

FLOE_DECL std::string caller_identity_body() { return "Action=GetCallerIdentity&Version=2011-06-15"; }

FLOE_DECL result<assumed_role> parse_assume_role_reply(std::string_view body) {
  xml::limits lim;
  lim.max_bytes = 256 * 1024;
  auto doc = xml::parse(body, lim);
  if (!doc) return doc.error();
  auto root = doc->root();
  if (root.name() != "AssumeRoleResponse" && root.name() != "AssumeRoleWithWebIdentityResponse")
    return detail::malformed("unexpected root element <" + credentials::detail::printable(root.name(), 64) + ">");
  auto res = root.child("AssumeRoleResult");
  if (!res) res = root.child("AssumeRoleWithWebIdentityResult");
  if (!res) return detail::malformed("no AssumeRole(WithWebIdentity)Result");
  auto c = res.child("Credentials");
  if (!c) return detail::malformed("no Credentials");
  assumed_role out;
  out.creds.access_key_id = c.child_text("AccessKeyId");
  out.creds.secret_access_key = credentials::secret_string(c.child_text("SecretAccessKey"));
  out.creds.session_token = credentials::secret_string(c.child_text("SessionToken"));
  if (auto ok = credentials::check_credential_field(out.creds.access_key_id, "AccessKeyId of the STS reply"); !ok)
    return detail::malformed(ok.error().diag.message);
  if (auto ok = credentials::check_credential_field(out.creds.secret_access_key.reveal(), "SecretAccessKey of the STS reply"); !ok)
    return detail::malformed(ok.error().diag.message);
  if (auto ok = credentials::check_credential_field(out.creds.session_token.reveal(), "SessionToken of the STS reply"); !ok)
    return detail::malformed(ok.error().diag.message);
  auto exp_text = c.child_text("Expiration");
  auto exp = credentials::parse_iso8601(exp_text);
  if (!exp) return detail::malformed("Expiration '" + credentials::detail::printable(exp_text, 64) + "' is not ISO 8601");
  out.creds.expiry = *exp;
  auto user = res.child("AssumedRoleUser");
  out.assumed_role_arn = user.child_text("Arn");
  out.assumed_role_id = user.child_text("AssumedRoleId");
  out.subject_from_web_identity_token = res.child_text("SubjectFromWebIdentityToken");
  return out;
}

FLOE_DECL result<caller_identity> parse_caller_identity_reply(std::string_view body) {
  auto doc = xml::parse(body);
  if (!doc) return doc.error();
  auto root = doc->root();
  if (root.name() != "GetCallerIdentityResponse")
    return detail::malformed("unexpected root element <" + credentials::detail::printable(root.name(), 64) + ">");
  auto res = root.child("GetCallerIdentityResult");
  if (!res) return detail::malformed("no GetCallerIdentityResult");
  caller_identity out;
  out.account = res.child_text("Account");
  out.arn = res.child_text("Arn");
  out.user_id = res.child_text("UserId");
  if (out.arn.empty()) return detail::malformed("no Arn");
  return out;
}

FLOE_DECL bool is_retryable_sts_code(std::string_view code) noexcept {
  if (code == "IDPCommunicationError" || code == "InvalidIdentityToken") return true;
  return errors::is_throttling_code(code);
}

FLOE_DECL std::string default_session_name(std::chrono::system_clock::time_point now) {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  return "floe-" + std::to_string(ms);
}

}  // namespace floe::sts
