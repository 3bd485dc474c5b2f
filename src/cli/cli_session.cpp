// The session the sqs and watch verbs make their clients from.

#include "cli_session.hpp"

#include "output.hpp"
#include "request_log.hpp"

#include <floe/providers/default_session.hpp>

namespace floe::cli {

result<std::shared_ptr<session>> make_cli_session(context& x) {
  global_options const& g = x.g;
  session_params sp;
  sp.shared_files.profile = g.profile;
  sp.region = g.region;
  sp.http.tls.ca_file = g.ca_bundle;
  sp.http.tls.verify_peer = !g.no_verify_ssl;
  if (g.debug) {
    global_options const* gp = &g;
    sp.http.observer = [gp](http::exchange_view const& v) { log_exchange(*gp, v); };
  }
  auto s = make_session(x.c.get_executor(), std::move(sp));
  if (s && g.debug) {
    auto const& provider = (*s)->credentials();
    auto creds = provider ? provider->get()
                          : result<floe::credentials::credentials>(error(errc::credentials_unavailable, "no provider"));
    if (creds) debug_line(g, "credentials " + creds->to_string());
    else debug_line(g, "credentials: none (" + creds.error().diag.message + ")");
  }
  return s;
}

}  // namespace floe::cli
