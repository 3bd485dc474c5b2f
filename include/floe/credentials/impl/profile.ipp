#pragma once
#include <floe/credentials/impl/ini.ipp>
#include <floe/credentials/profile.hpp>

namespace floe::credentials {

namespace detail {

// Splits like Python's shlex.split (POSIX mode, no comments), which
// botocore uses on section names; nullopt for an unbalanced quote.
inline std::optional<std::vector<std::string>> shell_words(std::string_view s) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
    } else if (c == '\'') {
      in_word = true;
      auto close = s.find('\'', i + 1);
      if (close == std::string_view::npos) return std::nullopt;
      word.append(s.substr(i + 1, close - i - 1));
      i = close;
    } else if (c == '"') {
      in_word = true;
      std::size_t j = i + 1;
      for (;; ++j) {
        if (j >= s.size()) return std::nullopt;
        if (s[j] == '"') break;
        if (s[j] == '\\' && j + 1 < s.size() && (s[j + 1] == '"' || s[j + 1] == '\\')) ++j;
        word += s[j];
      }
      i = j;
    } else if (c == '\\') {
      in_word = true;
      if (i + 1 >= s.size()) return std::nullopt;
      word += s[++i];
    } else {
      in_word = true;
      word += c;
    }
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

inline std::optional<std::string> prefixed_name(std::string_view section, std::string_view prefix) {
  if (section.substr(0, prefix.size()) != prefix) return std::nullopt;
  auto words = shell_words(section);
  if (!words || words->size() != 2) return std::nullopt;
  return std::move((*words)[1]);
}

inline void merge_section(profile& p, ini_section const& s, std::string const& file) {
  for (auto const& e : s.entries) {
    bool replaced = false;
    for (auto& old : p.settings)
      if (old.entry.key == e.key) {
        old = profile_setting{e, file};
        replaced = true;
      }
    if (!replaced) p.settings.push_back(profile_setting{e, file});
  }
}

inline std::string quoted_profile(std::string_view name) { return "profile '" + printable(name) + "'"; }

}  // namespace detail

FLOE_DECL profile_setting const* profile::find(std::string_view key) const noexcept {
  for (auto const& s : settings)
    if (detail::ini_iequal(s.entry.key, key)) return &s;
  return nullptr;
}

FLOE_DECL std::optional<std::string_view> profile::get(std::string_view key) const noexcept {
  auto s = find(key);
  if (!s || s->entry.is_nested()) return std::nullopt;
  return std::string_view(s->entry.value);
}

FLOE_DECL std::optional<std::string_view> profile::get_nested(std::string_view block,
                                                              std::string_view key) const noexcept {
  auto s = find(block);
  if (!s) return std::nullopt;
  auto n = s->entry.find(key);
  if (!n) return std::nullopt;
  return std::string_view(n->value);
}

FLOE_DECL std::optional<std::string_view> profile::service_setting(std::string_view service,
                                                                   std::string_view key) const noexcept {
  if (!services) return std::nullopt;
  auto block = services->find(service);
  if (!block) return std::nullopt;
  auto n = block->find(key);
  if (!n) return std::nullopt;
  return std::string_view(n->value);
}

FLOE_DECL endpoints::profile_settings profile::endpoint_settings() const {
  endpoints::profile_settings s;
  s.label = detail::quoted_profile(name);
  auto where = [this](std::string_view key) {
    auto const* st = find(key);
    return st ? st->where() : detail::quoted_profile(name);
  };
  if (auto u = get("endpoint_url"); u && !u->empty()) {
    s.endpoint_url = std::string(*u);
    s.endpoint_url_where = where("endpoint_url");
  }
  if (auto i = get("ignore_configured_endpoint_urls")) {
    s.ignore_configured_endpoint_urls = std::string(*i);
    s.ignore_where = where("ignore_configured_endpoint_urls");
  }
  if (services) {
    if (auto n = get("services")) s.services = detail::printable(*n);
    for (auto const& block : services->entries) {
      if (auto const* u = block.find("endpoint_url")) s.service_urls.emplace_back(block.key, u->value);
    }
  }
  return s;
}

FLOE_DECL std::optional<std::string> config_profile_name(std::string_view section_name) {
  if (section_name == "default") return std::string("default");
  return detail::prefixed_name(section_name, "profile");
}

FLOE_DECL ini_section const* shared_config::config_section(std::string_view name) const noexcept {
  if (!config) return nullptr;
  ini_section const* found = nullptr;
  for (auto const& s : config->sections) {
    auto n = config_profile_name(s.name);
    if (n && *n == name) found = &s;  // the later section wins, as in botocore
  }
  return found;
}

FLOE_DECL ini_section const* shared_config::credentials_section(std::string_view name) const noexcept {
  return credentials ? credentials->find(name) : nullptr;
}

FLOE_DECL std::optional<profile> shared_config::find_profile(std::string_view name) const {
  auto cs = config_section(name);
  auto ks = credentials_section(name);
  if (!cs && !ks) return std::nullopt;
  profile p;
  p.name = std::string(name);
  if (cs) {
    p.in_config = true;
    detail::merge_section(p, *cs, config_file);
  }
  if (ks) {
    p.in_credentials = true;
    detail::merge_section(p, *ks, credentials_file);
  }
  if (auto svc = p.get("services"); svc && config) {
    for (auto const& s : config->sections) {
      auto n = detail::prefixed_name(s.name, "services");
      if (n && *n == *svc) p.services = s;
    }
  }
  return p;
}

FLOE_DECL std::string shared_config::explain_missing(std::string_view name) const {
  using detail::printable;
  std::string m = detail::quoted_profile(name) + " is not defined in the credentials file " +
                  printable(credentials_file, 512) + (credentials ? "" : " (not found)") + " nor in the config file " +
                  printable(config_file, 512) + (config ? "" : " (not found)");
  if (config && name != "default") {
    if (auto s = config->find(name))
      m += "; the config file has a section [" + printable(name) + "] on line " + std::to_string(s->line) +
           ", but there a profile is written [profile " + printable(name) + "]";
  }
  return m;
}

FLOE_DECL result<credentials> credentials_from_profile(shared_config const& files, std::string_view name) {
  using detail::printable;
  using detail::quoted_profile;
  auto from_section = [&](ini_section const& s, std::string const& file) -> result<std::optional<credentials>> {
    auto key = s.find("aws_access_key_id");
    auto secret = s.find("aws_secret_access_key");
    if (!key && !secret) return std::optional<credentials>{};
    auto at = [&](ini_entry const& e) { return printable(file, 512) + ":" + std::to_string(e.line) + ": "; };
    if (!secret)
      return error(errc::invalid_argument, at(*key) + quoted_profile(name) +
                                               " sets aws_access_key_id but not aws_secret_access_key");
    if (!key)
      return error(errc::invalid_argument, at(*secret) + quoted_profile(name) +
                                               " sets aws_secret_access_key but not aws_access_key_id");
    for (auto e : {key, secret}) {
      if (e->is_nested()) return error(errc::invalid_argument, at(*e) + e->key + " of " + quoted_profile(name) + " is a nested block");
      if (auto r = check_credential_field(e->value, at(*e) + e->key + " of " + quoted_profile(name)); !r)
        return r.error();
    }
    credentials c;
    c.access_key_id = key->value;
    c.secret_access_key = secret_string(secret->value);
    auto token = s.find("aws_session_token");
    if (!token) token = s.find("aws_security_token");
    if (token && !token->value.empty()) {
      if (auto r = check_credential_field(token->value, at(*token) + token->key + " of " + quoted_profile(name)); !r)
        return r.error();
      c.session_token = secret_string(token->value);
    }
    return std::optional<credentials>(std::move(c));
  };

  auto ks = files.credentials_section(name);
  auto cs = files.config_section(name);
  if (!ks && !cs) return error(errc::credentials_unavailable, files.explain_missing(name));
  if (ks) {
    auto r = from_section(*ks, files.credentials_file);
    if (!r) return r.error();
    if (*r) {
      (*r)->source = "shared credentials file " + printable(files.credentials_file, 512) + ", " + quoted_profile(name);
      return std::move(**r);
    }
  }
  if (cs) {
    auto r = from_section(*cs, files.config_file);
    if (!r) return r.error();
    if (*r) {
      (*r)->source = "shared config file " + printable(files.config_file, 512) + ", " + quoted_profile(name);
      return std::move(**r);
    }
  }
  std::string m = quoted_profile(name) + " has no aws_access_key_id in " + printable(files.credentials_file, 512) +
                  " or " + printable(files.config_file, 512);
  auto p = files.find_profile(name);
  std::string others;
  for (std::string_view k : {"role_arn", "credential_process", "sso_session", "sso_start_url", "web_identity_token_file",
                             "credential_source"}) {
    if (p && p->find(k)) {
      if (!others.empty()) others += ", ";
      others += k;
    }
  }
  if (!others.empty()) m += "; it uses " + others + ", which this function does not read (only static keys; resolve_profile_plan in profile_chain.hpp reads them all)";
  return error(errc::credentials_unavailable, std::move(m));
}

}  // namespace floe::credentials
