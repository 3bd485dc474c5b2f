// The SQS client of `floe sqs`: a session made from the same global options
// as the S3 client (profile, region, TLS, the -v request log), with the
// default credential chain, and the SQS endpoint --endpoint-url names (else
// the session's resolver: AWS_ENDPOINT_URL_SQS, AWS_ENDPOINT_URL, the
// profile, AWS). Every request goes through the shared request driver.

#include "request_log.hpp"
#include "sqs_verbs.hpp"

#include <floe/providers/default_session.hpp>

namespace floe::cli {

result<std::unique_ptr<sqs::client>> open_sqs_client(context& x) {
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
  if (!s) return s.error();
  sqs::client_options o;
  o.endpoint_url = g.endpoint_url;
  return sqs::client::create(x.c.get_executor(), **s, o);
}

}  // namespace floe::cli
