// Fuzz target: the JSON documents credential sources return
// (credentials/json_credentials.hpp, sso.hpp): a credential_process's
// stdout, a container endpoint's and IMDS's replies, the SSO token cache
// file and the SSO portal's reply; and the ISO 8601 reader they share.
// Every parser sees every input.
//
// Invariants besides "no crash, no throw, no sanitizer report":
// - a refusal has an error code and a one-line reason naming the source;
// - an accepted set has a key id, secret (and token, when there is one)
//   that pass check_credential_field, equal to the document's own fields
//   (read here independently with simdjson); a process document has
//   Version 1; an accepted set prints (to_string) whatever its expiry;
// - no message depends on a secret: the input with the secret, token and
//   access token masked (fuzz_support.hpp) gives the same messages;
// - parse_iso8601: a time it accepts prints (format_iso8601) as a text it
//   reads back to the same time.

#include <floe/credentials/credentials.hpp>
#include <floe/credentials/json_credentials.hpp>
#include <floe/providers/sso.hpp>

#include <simdjson.h>

#include "fuzz_support.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace {

using floe_fuzz::check;
namespace cr = floe::credentials;

constexpr std::string_view what = "fuzz source";

// The string values of the fields a message must never show, and the
// texts that masking them must leave alone, read with simdjson.
struct doc_texts {
  std::vector<std::string> secrets;
  std::vector<std::string> keep;  // object keys and the other string values
  std::string secret, token, process_token, sso_secret;
};

void collect(simdjson::dom::element e, doc_texts& t, int depth) {
  if (depth > 64) return;
  if (simdjson::dom::object o; e.get(o) == simdjson::SUCCESS) {
    for (auto field : o) {
      t.keep.emplace_back(field.key);
      std::string_view v;
      if (field.value.get(v) == simdjson::SUCCESS) {
        auto const k = field.key;
        bool const secret = k == "SecretAccessKey" || k == "SessionToken" || k == "Token" || k == "accessToken" ||
                            k == "secretAccessKey" || k == "sessionToken";
        (secret ? t.secrets : t.keep).emplace_back(v);
      } else {
        collect(field.value, t, depth + 1);
      }
    }
  } else if (simdjson::dom::array a; e.get(a) == simdjson::SUCCESS) {
    for (auto x : a) {
      std::string_view v;
      if (x.get(v) == simdjson::SUCCESS) t.keep.emplace_back(v);
      else collect(x, t, depth + 1);
    }
  }
}

doc_texts read_texts(std::string_view bytes) {
  doc_texts t;
  simdjson::dom::parser parser;
  simdjson::padded_string padded(bytes.data(), bytes.size());
  simdjson::dom::element doc;
  if (parser.parse(padded).get(doc) != simdjson::SUCCESS) return t;
  collect(doc, t, 0);
  simdjson::dom::object o;
  if (doc.get(o) != simdjson::SUCCESS) return t;
  auto str = [](simdjson::dom::object obj, char const* k) {
    std::string_view v;
    return obj.at_key(k).get(v) == simdjson::SUCCESS ? std::string(v) : std::string();
  };
  t.secret = str(o, "SecretAccessKey");
  t.token = str(o, "Token");
  t.process_token = str(o, "SessionToken");
  if (simdjson::dom::object rc; o.at_key("roleCredentials").get(rc) == simdjson::SUCCESS)
    t.sso_secret = str(rc, "secretAccessKey");
  return t;
}

void check_refusal(floe::error const& e) {
  check(static_cast<bool>(e.code), "a refusal without an error code");
  check(e.diag.message.starts_with(what), "a message that does not name the source");
  check(floe_fuzz::printable_line(e.diag.message), "a control character in a message");
}

void check_set(cr::credentials const& c, std::string const& secret, std::string const& token) {
  check(cr::check_credential_field(c.access_key_id, "k").has_value(), "a bad key id accepted");
  check(cr::check_credential_field(c.secret_access_key.reveal(), "s").has_value(), "a bad secret accepted");
  if (c.has_session_token())
    check(cr::check_credential_field(c.session_token.reveal(), "t").has_value(), "a bad token accepted");
  check(c.secret_access_key.reveal() == secret, "the secret is not the document's");
  check(c.session_token.reveal() == token, "the token is not the document's");
  (void)c.to_string();
}

std::string run(std::string_view bytes, doc_texts const& t) {
  std::string log;
  struct kind_row {
    cr::json_credentials_kind kind;
    std::string const* token;
  };
  for (auto [kind, token] : {kind_row{cr::json_credentials_kind::process, &t.process_token},
                             kind_row{cr::json_credentials_kind::container, &t.token},
                             kind_row{cr::json_credentials_kind::imds, &t.token}}) {
    auto c = cr::parse_json_credentials(bytes, kind, what);
    if (!c) {
      check_refusal(c.error());
      log += c.error().diag.message + "\n";
      continue;
    }
    check_set(*c, t.secret, *token);
    if (kind == cr::json_credentials_kind::process) {
      simdjson::dom::parser parser;
      simdjson::padded_string padded(bytes.data(), bytes.size());
      std::int64_t v = 0;
      check(parser.parse(padded)["Version"].get(v) == simdjson::SUCCESS && v == 1, "a process document without Version 1");
    }
    log += c->to_string() + "\n";
  }

  auto tok = cr::parse_sso_token(bytes, what);
  if (!tok) {
    check_refusal(tok.error());
    log += tok.error().diag.message + "\n";
  } else {
    check(!tok->access_token.empty(), "an empty SSO token accepted");
    log += cr::format_iso8601(tok->expires_at) + "\n";
  }

  auto role = cr::parse_sso_role_credentials(bytes, what);
  if (!role) {
    check_refusal(role.error());
    log += role.error().diag.message + "\n";
  } else {
    check(role->expiry.has_value(), "SSO credentials without an expiry");
    check(role->secret_access_key.reveal() == t.sso_secret, "the SSO secret is not the document's");
    log += role->to_string() + "\n";
  }
  return log;
}

void check_iso8601(std::string_view bytes) {
  auto t = cr::parse_iso8601(bytes);
  if (!t) return;
  auto const text = cr::format_iso8601(*t);
  auto back = cr::parse_iso8601(text);
  check(back.has_value() && *back == *t, "format_iso8601 does not read back");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
  std::string_view const bytes(reinterpret_cast<char const*>(data), size);
  auto const texts = read_texts(bytes);
  auto const first = run(bytes, texts);

  // Mask each secret where it stands as a plain JSON string ("...", no
  // escapes). Skipped when it also spells a key or another value, which a
  // message may depend on (a field name, "Success", an expiry).
  std::string other(bytes);
  bool changed = false;
  for (auto const& s : texts.secrets) {
    if (s.empty() || s.find_first_of("\"\\") != std::string::npos) continue;
    bool shared = false;
    for (auto const& k : texts.keep) shared = shared || k.find(s) != std::string::npos;
    if (shared) continue;
    auto const m = floe_fuzz::masked(s);
    if (m == s) continue;
    auto next = floe_fuzz::replace_all(other, "\"" + s + "\"", "\"" + m + "\"");
    changed = changed || next != other;
    other = std::move(next);
  }
  if (changed) check(run(other, read_texts(other)) == first, "a message depends on a secret's value");

  check_iso8601(bytes);
  return 0;
}
