#pragma once
#include <floe/http/tls.hpp>

#include <openssl/x509.h>

#include <cstdlib>
#include <filesystem>

namespace floe::http {

FLOE_DECL std::vector<std::string> const& system_ca_files() {
  static std::vector<std::string> const files{
      "/etc/ssl/certs/ca-certificates.crt",                 // Debian, Ubuntu, Arch, Gentoo
      "/etc/pki/tls/certs/ca-bundle.crt",                   // RHEL, Fedora, CentOS
      "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",  // RHEL 7+, Fedora (the extracted store)
      "/etc/ssl/ca-bundle.pem",                             // SUSE
      "/etc/ssl/cert.pem",                                  // Alpine
      "/etc/pki/tls/cacert.pem",                            // OpenELEC
  };
  return files;
}

FLOE_DECL std::vector<std::string> const& system_ca_dirs() {
  static std::vector<std::string> const dirs{
      "/etc/ssl/certs",      // Debian, SUSE
      "/etc/pki/tls/certs",  // RHEL, Fedora
  };
  return dirs;
}

FLOE_DECL ca_location choose_ca_location(tls_config const& cfg, env_lookup const& env, path_exists const& exists,
                                         std::string_view library_file, std::string_view library_dir) {
  if (!cfg.ca_file.empty()) return {cfg.ca_file, {}, "tls_config::ca_file"};
  if (cfg.use_env_ca_bundle) {
    auto var = [&env](std::string_view name) {
      auto v = env(name);
      return v ? *v : std::string();
    };
    if (auto b = var("AWS_CA_BUNDLE"); !b.empty()) return {b, {}, "AWS_CA_BUNDLE"};
    auto file = var("SSL_CERT_FILE");
    auto dir = var("SSL_CERT_DIR");
    if (!file.empty() || !dir.empty()) {
      std::string origin = !file.empty() && !dir.empty() ? "SSL_CERT_FILE and SSL_CERT_DIR"
                           : !file.empty()              ? "SSL_CERT_FILE"
                                                        : "SSL_CERT_DIR";
      return {std::move(file), std::move(dir), std::move(origin)};
    }
  }
  for (auto const& f : system_ca_files())
    if (exists(f)) return {f, {}, "the system's CA bundle"};
  if (!library_file.empty() && exists(std::string(library_file)))
    return {std::string(library_file), {}, "OpenSSL's default CA bundle"};
  for (auto const& d : system_ca_dirs())
    if (exists(d)) return {{}, d, "the system's CA directory"};
  if (!library_dir.empty() && exists(std::string(library_dir)))
    return {{}, std::string(library_dir), "OpenSSL's default CA directory"};
  return {};
}

FLOE_DECL result<std::shared_ptr<boost::asio::ssl::context>> make_tls_context(tls_config const& cfg,
                                                                             env_lookup const& env) {
  namespace ssl = boost::asio::ssl;
  boost::system::error_code ec;
  auto ctx = std::make_shared<ssl::context>(ssl::context::tls_client);
  ctx->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                       ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1,
                   ec);
  if (ec) return detail::with_message(ec, "TLS context options");
  if (!cfg.verify_peer) {
    if (cfg.on_warning)
      cfg.on_warning("TLS peer verification is DISABLED (tls_config::verify_peer = false); "
                     "connections can be intercepted");
    ctx->set_verify_mode(ssl::verify_none, ec);
    return ctx;
  }
  ctx->set_verify_mode(ssl::verify_peer, ec);
  if (ec) return error(ec);
  auto exists = [](std::string const& path) {
    std::error_code fe;
    return std::filesystem::exists(path, fe);
  };
  auto const where = choose_ca_location(cfg, env, exists, X509_get_default_cert_file(), X509_get_default_cert_dir());
  if (!where.found()) {
    std::string looked;
    for (auto const& f : system_ca_files()) looked += f + ", ";
    for (auto const& d : system_ca_dirs()) looked += d + ", ";
    looked += std::string(X509_get_default_cert_file()) + ", " + X509_get_default_cert_dir();
    return error(errc::invalid_argument,
                 "no trusted CA certificates found (none of " + looked +
                     " exists): name a PEM bundle with tls_config::ca_file (the CLI's --ca-bundle), "
                     "AWS_CA_BUNDLE or SSL_CERT_FILE");
  }
  if (!where.file.empty()) {
    ctx->load_verify_file(where.file, ec);
    if (ec)
      return error(errc::invalid_argument,
                   "cannot load the CA bundle " + where.file + " (from " + where.origin + "): " + ec.message());
  }
  if (!where.dir.empty()) {
    ctx->add_verify_path(where.dir, ec);
    if (ec)
      return error(errc::invalid_argument,
                   "cannot use the CA directory " + where.dir + " (from " + where.origin + "): " + ec.message());
  }
  return ctx;
}

FLOE_DECL result<std::shared_ptr<boost::asio::ssl::context>> make_tls_context(tls_config const& cfg) {
  return make_tls_context(cfg, cfg.env ? cfg.env : process_environment());
}

}  // namespace floe::http
