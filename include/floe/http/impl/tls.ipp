#pragma once
#include <floe/http/tls.hpp>

#include <cstdlib>

namespace floe::http {

FLOE_DECL result<std::shared_ptr<boost::asio::ssl::context>> make_tls_context(tls_config const& cfg) {
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
  std::string bundle = cfg.ca_file;
  if (bundle.empty() && cfg.use_env_ca_bundle)
    if (char const* env = std::getenv("AWS_CA_BUNDLE"); env && *env) bundle = env;
  if (!bundle.empty()) {
    ctx->load_verify_file(bundle, ec);
    if (ec) return error(errc::invalid_argument, "cannot load the CA bundle " + bundle + ": " + ec.message());
  } else {
    ctx->set_default_verify_paths(ec);
    if (ec) return detail::with_message(ec, "cannot load the system CA store");
  }
  return ctx;
}

}  // namespace floe::http
