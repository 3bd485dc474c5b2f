// Fuzz target: the STS reply bodies floe reads (sts/protocol.hpp):
// AssumeRoleResponse, AssumeRoleWithWebIdentityResponse and
// GetCallerIdentityResponse, both parsers on every input.
//
// Invariants besides "no crash, no throw, no sanitizer report":
// - a refusal has an error code and a one-line reason;
// - no message depends on the secret key or the session token: the input
//   with those texts masked (fuzz_support.hpp) gives the same messages;
// - an accepted AssumeRole reply has a key id, secret and token that pass
//   check_credential_field (printable ASCII, no blanks), the reply's own
//   secret, and an expiry; its printed form (credentials::to_string) does
//   not depend on the secret or the token;
// - an accepted GetCallerIdentity reply has an Arn.

#include <floe/credentials/credentials.hpp>
#include <floe/sts/protocol.hpp>
#include <floe/xml/document.hpp>

#include "fuzz_support.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace {

using floe_fuzz::check;

struct reply_texts {
  std::string root, key_id, secret, token, expiration;
};

reply_texts read_texts(std::string_view bytes) {
  reply_texts t;
  auto doc = floe::xml::parse(bytes, {.max_bytes = 1u << 20, .max_depth = 256});
  if (!doc) return t;
  auto root = doc->root();
  t.root = std::string(root.name());
  auto res = root.child("AssumeRoleResult");
  if (!res) res = root.child("AssumeRoleWithWebIdentityResult");
  auto c = res.child("Credentials");
  t.key_id = c.child_text("AccessKeyId");
  t.secret = c.child_text("SecretAccessKey");
  t.token = c.child_text("SessionToken");
  t.expiration = c.child_text("Expiration");
  return t;
}

// The messages of both parsers for one input (empty: accepted).
struct outcome {
  std::string assume_role, caller_identity;
};

outcome run(std::string_view bytes, reply_texts const& t) {
  outcome o;
  auto role = floe::sts::parse_assume_role_reply(bytes);
  if (!role) {
    check(static_cast<bool>(role.error().code), "a refusal without an error code");
    o.assume_role = role.error().diag.message;
    check(!o.assume_role.empty(), "a refusal without a reason");
    check(floe_fuzz::printable_line(o.assume_role), "a control character in a message");
  } else {
    auto const& c = role->creds;
    check(floe::credentials::check_credential_field(c.access_key_id, "id").has_value(), "bad key id accepted");
    check(floe::credentials::check_credential_field(c.secret_access_key.reveal(), "s").has_value(), "bad secret accepted");
    check(floe::credentials::check_credential_field(c.session_token.reveal(), "t").has_value(), "bad token accepted");
    check(c.expiry.has_value(), "no expiry");
    check(c.secret_access_key.reveal() == t.secret, "the secret is not the reply's");
    auto other = c;
    other.secret_access_key = floe::credentials::secret_string("other-secret");
    other.session_token = floe::credentials::secret_string("other-token");
    check(c.to_string() == other.to_string(), "to_string depends on the secret or the token");
  }
  auto who = floe::sts::parse_caller_identity_reply(bytes);
  if (!who) {
    check(static_cast<bool>(who.error().code), "a refusal without an error code");
    o.caller_identity = who.error().diag.message;
    check(!o.caller_identity.empty(), "a refusal without a reason");
    check(floe_fuzz::printable_line(o.caller_identity), "a control character in a message");
  } else {
    check(!who->arn.empty(), "a caller identity without an Arn");
  }
  return o;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
  std::string_view const bytes(reinterpret_cast<char const*>(data), size);
  auto const texts = read_texts(bytes);
  auto const first = run(bytes, texts);

  // The same input with the secret and the token masked where they appear
  // as plain element text. Skipped when a text a message quotes (the root's
  // name, the Expiration) could be masked with them.
  std::string other(bytes);
  bool changed = false;
  for (auto const& s : {texts.secret, texts.token}) {
    if (s.empty() || texts.expiration.find(s) != std::string::npos || texts.root.find(s) != std::string::npos) continue;
    auto const m = floe_fuzz::masked(s);
    if (m == s) continue;
    auto next = floe_fuzz::replace_all(other, ">" + s + "<", ">" + m + "<");
    changed = changed || next != other;
    other = std::move(next);
  }
  if (changed) {
    auto const second = run(other, read_texts(other));
    check(first.assume_role == second.assume_role, "an AssumeRole message depends on the secret or the token");
    check(first.caller_identity == second.caller_identity, "a GetCallerIdentity message depends on the secret");
  }
  return 0;
}
