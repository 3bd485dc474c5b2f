#pragma once
#include <floe/credentials/shared_files.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace floe::credentials {

namespace detail {
inline std::string expand_home(std::string path, std::optional<std::string> const& home) {
  if (path == "~" || path.rfind("~/", 0) == 0) {
    if (!home) return {};
    std::string h = *home;
    while (h.size() > 1 && h.back() == '/') h.pop_back();
    path.replace(0, 1, h);
  }
  return path;
}
}  // namespace detail

FLOE_DECL shared_files_location locate_shared_files(shared_files_params const& params, env_lookup const& env) {
  shared_files_location w;
  if (!params.profile.empty()) {
    w.profile = params.profile;
    w.profile_source = "caller";
  } else if (auto p = non_empty(env, "AWS_PROFILE")) {
    w.profile = *p;
    w.profile_source = "AWS_PROFILE";
  } else if (auto d = non_empty(env, "AWS_DEFAULT_PROFILE")) {
    w.profile = *d;
    w.profile_source = "AWS_DEFAULT_PROFILE";
  } else {
    w.profile = "default";
    w.profile_source = "default";
  }
  auto home = non_empty(env, "HOME");
  auto pick = [&](std::string const& given, std::string_view var, std::string_view leaf) {
    if (!given.empty()) return detail::expand_home(given, home);
    if (auto v = non_empty(env, var)) return detail::expand_home(*v, home);
    if (!home) return std::string();
    std::string h = *home;
    while (h.size() > 1 && h.back() == '/') h.pop_back();
    return h + "/.aws/" + std::string(leaf);
  };
  w.config_file = pick(params.config_file, "AWS_CONFIG_FILE", "config");
  w.credentials_file = pick(params.credentials_file, "AWS_SHARED_CREDENTIALS_FILE", "credentials");
  return w;
}

FLOE_DECL result<std::optional<std::string>> read_shared_file(std::string const& path) {
  if (path.empty()) return std::optional<std::string>{};
  auto fail = [&](std::string why) {
    return error(errc::invalid_argument, detail::printable(path, 512) + ": " + why);
  };
  errno = 0;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) {
    int e = errno;
    if (e == ENOENT || e == ENOTDIR) return std::optional<std::string>{};
    return fail(std::strerror(e));
  }
  std::string data;
  char buf[8192];
  for (;;) {
    std::size_t n = std::fread(buf, 1, sizeof buf, f.get());
    data.append(buf, n);
    if (data.size() > max_shared_file_size)
      return fail("larger than " + std::to_string(max_shared_file_size) + " bytes; not a profile file");
    if (n < sizeof buf) {
      if (std::ferror(f.get())) return fail(std::strerror(errno ? errno : EIO));
      break;
    }
  }
  return std::optional<std::string>(std::move(data));
}

FLOE_DECL result<shared_config> parse_shared_config(shared_files_location const& where,
                                                    std::optional<std::string_view> config_text,
                                                    std::optional<std::string_view> credentials_text) {
  shared_config sc;
  sc.config_file = where.config_file.empty() ? std::string("~/.aws/config (HOME is not set)") : where.config_file;
  sc.credentials_file =
      where.credentials_file.empty() ? std::string("~/.aws/credentials (HOME is not set)") : where.credentials_file;
  if (config_text) {
    auto d = parse_ini(*config_text, sc.config_file);
    if (!d) return d.error();
    sc.config = std::move(*d);
  }
  if (credentials_text) {
    auto d = parse_ini(*credentials_text, sc.credentials_file);
    if (!d) return d.error();
    sc.credentials = std::move(*d);
  }
  return sc;
}

FLOE_DECL result<shared_config> load_shared_config(shared_files_location const& where) {
  auto config = read_shared_file(where.config_file);
  if (!config) return config.error();
  auto creds = read_shared_file(where.credentials_file);
  if (!creds) return creds.error();
  std::optional<std::string_view> c, k;
  if (*config) c = **config;
  if (*creds) k = **creds;
  return parse_shared_config(where, c, k);
}

FLOE_DECL result<credentials> credentials_from_shared_config(shared_config const& files,
                                                             shared_files_location const& where) {
  if (!files.config_section(where.profile) && !files.credentials_section(where.profile)) {
    std::string m = files.explain_missing(where.profile);
    if (where.explicit_profile()) {
      m += " (named by " + where.profile_source + ")";
      return error(errc::invalid_argument, std::move(m));
    }
    return error(errc::credentials_unavailable, std::move(m));
  }
  return credentials_from_profile(files, where.profile);
}

FLOE_DECL result<credentials> credentials_from_shared_files(shared_files_params const& params, env_lookup const& env) {
  auto where = locate_shared_files(params, env);
  auto files = load_shared_config(where);
  if (!files) return files.error();
  return credentials_from_shared_config(*files, where);
}

}  // namespace floe::credentials
