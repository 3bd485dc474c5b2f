#pragma once
// TLS settings, where trusted CA certificates are found, and the OpenSSL
// context built from them (through asio::ssl).

#include <floe/config.hpp>
#include <floe/environment.hpp>
#include <floe/result.hpp>

#include <boost/asio/ssl/context.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace floe::http {

namespace detail {
inline error with_message(boost::system::error_code ec, std::string message) {
  diagnostics d;
  d.message = std::move(message);
  return error(ec, std::move(d));
}
}  // namespace detail

/// Receives a warning meant for a person (one line, no trailing newline).
/// The library never writes to stdout or stderr itself: a program that wants
/// its warnings shown sets this (the CLI prints them on stderr).
using warning_hook = std::function<void(std::string_view message)>;

struct tls_config {
  /// Verify the peer's chain and host name. Turning this off is an explicit
  /// opt-out for test rigs, reported to `on_warning`; never do it in
  /// production.
  bool verify_peer = true;
  /// A PEM bundle of trusted CAs. Empty: see choose_ca_location.
  std::string ca_file;
  /// Read AWS_CA_BUNDLE, SSL_CERT_FILE and SSL_CERT_DIR; when false, none of
  /// them is read (OpenSSL's own reading of SSL_CERT_* included).
  bool use_env_ca_bundle = true;
  /// Told once per TLS context built with `verify_peer` off (an HTTP client
  /// builds one, on its first TLS connection). Empty: nobody is told.
  warning_hook on_warning;
  /// Where those variables are read; null: the process environment. A
  /// session sets its own lookup here.
  floe::env_lookup env;
};

/// Looks up one environment variable (floe/environment.hpp).
using env_lookup = floe::env_lookup;

/// Whether a file or directory exists at `path`.
using path_exists = std::function<bool(std::string const& path)>;

/// Where trusted CA certificates are read from.
struct ca_location {
  std::string file;    // a PEM bundle, or empty
  std::string dir;     // a directory of hashed certificates (c_rehash), or empty
  std::string origin;  // what chose them, for messages: "AWS_CA_BUNDLE", "the system's CA bundle", ...
  bool found() const noexcept { return !file.empty() || !dir.empty(); }
};

/// The places a system keeps its CA bundle, in the order they are tried:
/// Debian and Ubuntu, RHEL and Fedora (two), SUSE, Alpine, OpenELEC.
FLOE_DECL std::vector<std::string> const& system_ca_files();

/// The directories of hashed certificates tried after every bundle file:
/// Debian and SUSE, RHEL and Fedora.
FLOE_DECL std::vector<std::string> const& system_ca_dirs();

/// Chooses where trusted CAs come from, in this order:
///  1. cfg.ca_file (the CLI's --ca-bundle);
///  2. when cfg.use_env_ca_bundle: AWS_CA_BUNDLE; else SSL_CERT_FILE and
///     SSL_CERT_DIR (either or both, as OpenSSL reads them);
///  3. the first of system_ca_files() that exists, then `library_file`;
///  4. the first of system_ca_dirs() that exists, then `library_dir`.
/// `library_file`/`library_dir` are OpenSSL's compiled-in defaults, which a
/// statically linked OpenSSL carries from the system it was built on: last,
/// because elsewhere they are rarely where the certificates are. A location
/// named in 1 or 2 is taken as given, existing or not, so that a wrong one
/// fails naming itself instead of quietly trusting another set. An empty
/// variable counts as unset. Nothing found: found() is false. Pure: the
/// environment and the file system are the parameters.
FLOE_DECL ca_location choose_ca_location(tls_config const& cfg, env_lookup const& env, path_exists const& exists,
                                         std::string_view library_file = {}, std::string_view library_dir = {});

/// Builds a TLS-client context: TLS 1.2 minimum, peer verification on unless
/// opted out (which calls `cfg.on_warning`), trusted CAs from
/// choose_ca_location over `env` and the file system. Errors:
/// errc::invalid_argument when the chosen CAs cannot be loaded (naming the
/// path and what chose it), or when no CA certificates were found anywhere
/// (naming the places looked at).
FLOE_DECL result<std::shared_ptr<boost::asio::ssl::context>> make_tls_context(tls_config const& cfg,
                                                                             env_lookup const& env);

/// The same over the process environment.
FLOE_DECL result<std::shared_ptr<boost::asio::ssl::context>> make_tls_context(tls_config const& cfg);

}  // namespace floe::http

#if defined(FLOE_HEADER_ONLY)
#include <floe/http/impl/tls.ipp>
#endif
