// Fuzz target: the user's shared files, ~/.aws/config and ~/.aws/credentials
// (credentials/ini.hpp, profile.hpp, profile_chain.hpp, shared_files.hpp),
// and the credential_process command line (process.hpp).
//
// Input: the config file's text, optionally a NUL and the credentials
// file's text (absent: no credentials file), optionally another NUL and a
// profile name to resolve besides the ones the files define.
//
// Invariants besides "no crash, no throw, no sanitizer report":
// - parse_ini: sections are unique; top-level keys are non-empty, lower
//   case, unique within their section; values carry no surrounding blanks;
//   nested keys are non-empty; an error names the file and a line;
// - resolve_profile_plan and credentials_from_profile are deterministic;
//   a plan's path starts with the profile asked for; a static-keys plan
//   holds keys that pass check_credential_field; a process plan's command
//   is not empty;
// - no message and no description depends on a secret: the input with the
//   values of aws_secret_access_key, aws_session_token and
//   aws_security_token masked (fuzz_support.hpp) gives the same messages;
// - split_command_line: a success has at least one word.

#include <floe/credentials/credentials.hpp>
#include <floe/credentials/ini.hpp>
#include <floe/credentials/process.hpp>
#include <floe/credentials/profile.hpp>
#include <floe/credentials/profile_chain.hpp>
#include <floe/credentials/shared_files.hpp>

#include "fuzz_support.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace {

using floe_fuzz::check;
namespace cr = floe::credentials;

constexpr std::size_t max_names = 16;  // profiles resolved per input: bounds the time per input

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

bool blank(char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r'; }

void check_entry(cr::ini_entry const& e, bool top) {
  check(!e.key.empty(), "an empty key was accepted");
  if (top) check(e.key == lower(e.key), "a top-level key is not lower case");
  if (!e.value.empty()) check(!blank(e.value.front()) && !blank(e.value.back()), "a value keeps surrounding blanks");
  check(e.line > 0, "an entry without a line");
  for (auto const& n : e.nested) check_entry(n, false);
}

void check_document(cr::ini_document const& d) {
  for (std::size_t i = 0; i < d.sections.size(); ++i) {
    auto const& s = d.sections[i];
    check(s.name != "DEFAULT", "[DEFAULT] kept as a section");
    for (std::size_t j = 0; j < i; ++j) check(d.sections[j].name != s.name, "a section name twice");
    for (std::size_t k = 0; k < s.entries.size(); ++k) {
      check_entry(s.entries[k], true);
      for (std::size_t j = 0; j < k; ++j) check(s.entries[j].key != s.entries[k].key, "a key twice in a section");
    }
    check(d.find(s.name) == &s, "find misses a section");
  }
}

void check_parse_error(floe::error const& e, std::string_view file) {
  check(e.code == floe::errc::invalid_argument, "an INI error that is not invalid_argument");
  auto const& m = e.diag.message;
  check(m.starts_with(std::string(file) + ":"), "an INI error that does not name its file");
  check(m.size() > file.size() + 1 && m[file.size() + 1] >= '1' && m[file.size() + 1] <= '9',
        "an INI error without a line");
  check(floe_fuzz::printable_line(m), "a control character in an INI error");
}

// Everything one input gives, in one string (messages, plans, sources),
// compared between the input and its masked copy. Secrets themselves never
// go in.
std::string run(std::string_view config, std::optional<std::string_view> creds, std::string_view extra_name) {
  std::string log;
  auto const cfg_doc = cr::parse_ini(config, "cfg");
  if (cfg_doc) {
    check_document(*cfg_doc);
  } else {
    check_parse_error(cfg_doc.error(), "cfg");
    log += "config: " + cfg_doc.error().diag.message + "\n";
  }
  if (creds) {
    auto const d = cr::parse_ini(*creds, "creds");
    if (d) {
      check_document(*d);
    } else {
      check_parse_error(d.error(), "creds");
      log += "credentials: " + d.error().diag.message + "\n";
    }
  }

  cr::shared_files_location where;
  where.profile = "default";
  where.profile_source = "default";
  where.config_file = "cfg";
  where.credentials_file = "creds";
  auto files = cr::parse_shared_config(where, config, creds);
  if (!files) {
    log += "shared: " + files.error().diag.message + "\n";
    return log;
  }

  std::vector<std::string> names{"default"};
  if (!extra_name.empty()) names.emplace_back(extra_name);
  if (files->config)
    for (auto const& s : files->config->sections)
      if (auto n = cr::config_profile_name(s.name)) names.push_back(*n);
  if (files->credentials)
    for (auto const& s : files->credentials->sections) names.push_back(s.name);
  if (names.size() > max_names) names.resize(max_names);

  for (auto const& name : names) {
    log += "profile " + name + ":\n";
    log += "  missing: " + files->explain_missing(name) + "\n";
    auto const keys = cr::credentials_from_profile(*files, name);
    if (keys) {
      check(cr::check_credential_field(keys->access_key_id, "k").has_value(), "a bad key id accepted");
      check(cr::check_credential_field(keys->secret_access_key.reveal(), "s").has_value(), "a bad secret accepted");
      log += "  keys: " + keys->to_string() + "\n";
    } else {
      check(floe_fuzz::printable_line(keys.error().diag.message), "a control character in a message");
      log += "  keys: " + keys.error().diag.message + "\n";
    }
    auto const plan = cr::resolve_profile_plan(*files, name);
    auto const again = cr::resolve_profile_plan(*files, name);
    check(plan.has_value() == again.has_value(), "resolve_profile_plan is not deterministic");
    if (!plan) {
      check(again.error().diag.message == plan.error().diag.message, "resolve_profile_plan is not deterministic");
      check(floe_fuzz::printable_line(plan.error().diag.message), "a control character in a message");
      log += "  plan: " + plan.error().diag.message + "\n";
      continue;
    }
    check(plan->describe() == again->describe(), "resolve_profile_plan is not deterministic");
    check(!plan->path.empty() && plan->path.front() == name, "a plan's path does not start with its profile");
    log += "  plan: " + plan->describe() + "\n";
    switch (plan->base) {
      case cr::profile_base_kind::static_keys:
        check(plan->static_keys.has_value(), "a static-keys plan without keys");
        check(cr::check_credential_field(plan->static_keys->secret_access_key.reveal(), "s").has_value(),
              "a bad secret in a plan");
        log += "  static: " + plan->static_keys->to_string() + "\n";
        break;
      case cr::profile_base_kind::process: {
        check(!plan->process_command.empty(), "a process plan without a command");
        auto const words = cr::split_command_line(plan->process_command);
        if (words) {
          check(!words->empty(), "a command line of no words");
          log += "  argv: " + std::to_string(words->size()) + "\n";
        } else {
          log += "  argv: " + words.error().diag.message + "\n";
        }
        break;
      }
      case cr::profile_base_kind::sso:
        check(!plan->sso_account_id.empty() && !plan->sso_role_name.empty(), "an SSO plan without account or role");
        break;
      default:
        break;
    }
  }
  return log;
}

bool is_secret_key(std::string_view key) {
  auto const k = lower(key);
  return k == "aws_secret_access_key" || k == "aws_session_token" || k == "aws_security_token";
}

// The text with the value of each unindented secret setting masked. An
// unindented line is never a continuation line, so such a line is the
// setting itself. INI punctuation stays, so that what the value is made of
// (a nested block, a comment-like text) does not change.
std::string mask_secrets(std::string_view text) {
  std::string out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    auto end = text.find_first_of("\r\n", pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view const line = text.substr(pos, end - pos);
    auto const delim = line.find_first_of("=:");
    if (!line.empty() && !blank(line.front()) && line.front() != '[' && delim != std::string_view::npos) {
      auto key = line.substr(0, delim);
      while (!key.empty() && blank(key.back())) key.remove_suffix(1);
      if (is_secret_key(key)) {
        out.append(line.substr(0, delim + 1));
        out.append(floe_fuzz::masked(line.substr(delim + 1), "=:[]#;"));
      } else {
        out.append(line);
      }
    } else {
      out.append(line);
    }
    if (end < text.size()) out += text[end];
    pos = end + 1;
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
  std::string_view const bytes(reinterpret_cast<char const*>(data), size);
  auto const parts = floe_fuzz::split(bytes, '\0', 3);
  std::string_view const config = parts[0];
  std::optional<std::string_view> creds;
  if (parts.size() > 1) creds = parts[1];
  std::string_view const name = parts.size() > 2 ? parts[2] : std::string_view();

  auto const first = run(config, creds, name);

  std::string const mconfig = mask_secrets(config);
  std::optional<std::string> mcreds;
  if (creds) mcreds = mask_secrets(*creds);
  if (mconfig != config || (creds && *mcreds != *creds)) {
    std::optional<std::string_view> mc;
    if (mcreds) mc = *mcreds;
    check(run(mconfig, mc, name) == first, "a message or description depends on a secret's value");
  }

  // The command-line splitter on the raw text, too.
  auto const words = cr::split_command_line(config);
  if (words) check(!words->empty(), "a command line of no words");
  return 0;
}
