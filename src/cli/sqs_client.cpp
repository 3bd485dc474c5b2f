// The SQS client of `floe sqs`: a session made from the same global options
// as the S3 client (profile, region, TLS, the -v request log), with the
// default credential chain, and the SQS endpoint --endpoint-url names (else
// the session's resolver: AWS_ENDPOINT_URL_SQS, AWS_ENDPOINT_URL, the
// profile, AWS). Every request goes through the shared request driver.

#include "cli_session.hpp"
#include "sqs_verbs.hpp"

namespace floe::cli {

result<std::unique_ptr<sqs::client>> open_sqs_client(context& x) {
  auto s = make_cli_session(x);
  if (!s) return s.error();
  sqs::client_options o;
  o.endpoint_url = x.g.endpoint_url;
  return sqs::client::create(x.c.get_executor(), **s, o);
}

}  // namespace floe::cli
