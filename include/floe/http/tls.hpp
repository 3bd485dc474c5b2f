#pragma once
// TLS settings and the OpenSSL context built from them (through asio::ssl).

#include <floe/config.hpp>
#include <floe/result.hpp>

#include <boost/asio/ssl/context.hpp>

#include <functional>
#include <memory>
#include <string>
#include <string_view>

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
  /// A PEM bundle of trusted CAs. Empty: $AWS_CA_BUNDLE if set and
  /// `use_env_ca_bundle`, else the system's default store.
  std::string ca_file;
  bool use_env_ca_bundle = true;
  /// Told once per TLS context built with `verify_peer` off (an HTTP client
  /// builds one, on its first TLS connection). Empty: nobody is told.
  warning_hook on_warning;
};

/// Builds a TLS-client context: TLS 1.2 minimum, peer verification on unless
/// opted out (which calls `cfg.on_warning`), trusted CAs from
/// `cfg.ca_file`, $AWS_CA_BUNDLE or the system store. A CA file that cannot
/// be read is errc::invalid_argument naming it.
FLOE_DECL result<std::shared_ptr<boost::asio::ssl::context>> make_tls_context(tls_config const& cfg);

}  // namespace floe::http

#if defined(FLOE_HEADER_ONLY)
#include <floe/http/impl/tls.ipp>
#endif
