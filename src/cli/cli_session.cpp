// The session the sqs and watch verbs make their clients from.

#include "cli_session.hpp"

#include "output.hpp"

#include <floe/providers/default_session.hpp>

namespace floe::cli {

result<std::shared_ptr<session>> make_cli_session(context& x) {
  global_options const& g = x.g;
  session_params sp;
  sp.shared_files.profile = g.profile;
  sp.region = g.region;
  // The command's HTTP settings as main() made them for its S3 client: TLS
  // (and the warning --no-verify-ssl prints), timeouts, the low-speed
  // limit, buffer sizes and --debug's exchange log.
  sp.http = x.c.config().http;
  auto s = make_session(x.c.get_executor(), std::move(sp));
  if (s && g.debug) debug_credentials(g, (*s)->credentials().get());
  return s;
}

void debug_credentials(global_options const& g, credentials::provider* provider) {
  auto creds = provider != nullptr
                   ? provider->get()
                   : result<floe::credentials::credentials>(error(errc::credentials_unavailable, "no provider"));
  if (creds) debug_line(g, "credentials " + creds->to_string());
  else debug_line(g, "credentials: none (" + creds.error().diag.message + ")");
}

}  // namespace floe::cli
