// floe whoami: GetCallerIdentity with the credentials the default chain
// (or --profile) gives, and with --verbose where they came from. Prints no
// secret, session token or token-file contents: only the identity STS
// returns, the provider's description, the generation and the expiry.

#include "../cli_session.hpp"
#include "../context.hpp"
#include "../json_writer.hpp"
#include "../output.hpp"
#include "../verbs.hpp"

#include <floe/credentials/credentials.hpp>
#include <floe/sts/client.hpp>

#include <boost/asio/use_awaitable.hpp>

namespace floe::cli {

namespace {

namespace asio = boost::asio;

asio::awaitable<int> cmd_whoami(context& x) {
  auto const& cl = x.cl;
  // The command's session: the profile's region and its `services` /
  // endpoint_url for STS, the one resolver, the TLS and proxy settings.
  auto s = make_cli_session(x);
  if (!s) {
    report_error(cl.g, s.error(), "configuration", "");
    co_return s.error().code == errc::invalid_argument ? exit_usage : exit_error;
  }
  if (!(*s)->credentials()) {
    report_error(cl.g, error(errc::credentials_unavailable, "no credentials provider"), "credentials", "");
    co_return exit_error;
  }
  auto& provider = *(*s)->credentials();
  sts::client_config sc;
  sc.endpoint.endpoint_url = cl.g.endpoint_url;
  auto sts = sts::client::create(x.c.get_executor(), **s, sc);
  if (!sts) {
    report_error(cl.g, sts.error(), "GetCallerIdentity", "");
    co_return exit_usage;
  }
  if (cl.g.debug) debug_line(cl.g, "STS endpoint " + (*sts)->endpoint().url + " (" + (*sts)->endpoint().source + ")");

  auto creds = co_await provider.async_get(asio::use_awaitable);
  if (!creds) {
    report_error(cl.g, creds.error(), "credentials", "");
    co_return exit_code_for(creds.error());
  }
  // Signed by the session's provider through the one request path: a set
  // refused as stale (a role recreated, keys revoked) is renewed and the
  // call sent once more, as for every other request.
  auto who = co_await (*sts)->async_get_caller_identity(asio::use_awaitable);
  if (who) {
    // What signed the answer: the set a heal fetched, when there was one.
    auto now = co_await provider.async_get(asio::use_awaitable);
    if (now) creds = std::move(now);
  }
  if (!who) {
    auto e = who.error();
    if (!creds->source.empty()) e.diag.message += " (credentials from " + creds->source + ")";
    report_error(cl.g, e, "GetCallerIdentity", "");
    co_return exit_code_for(e);
  }

  std::string const expiry = creds->expiry ? credentials::format_iso8601(*creds->expiry) : std::string();
  std::string out;
  if (cl.g.json) {
    json_writer w;
    w.begin_object().field("Account", who->account).field("Arn", who->arn).field("UserId", who->user_id);
    if (cl.verbose) {
      w.field("AccessKeyId", credentials::redact_key_id(creds->access_key_id)).field("Source", creds->source);
      w.field("Provider", provider.describe()).field("Refreshable", provider.refreshable());
      w.field("Generation", creds->generation).key("Expiration");
      if (creds->expiry) w.value(expiry);
      else w.null();
    }
    w.end_object();
    out = w.line();
  } else {
    out = "Account: " + printable(who->account) + "\nArn:     " + printable(who->arn) +
          "\nUserId:  " + printable(who->user_id) + "\n";
    if (cl.verbose) {
      out += "AccessKeyId: " + credentials::redact_key_id(creds->access_key_id) + "\n";
      out += "Source:      " + printable(creds->source) + "\n";
      out += "Provider:    " + printable(provider.describe()) + "\n";
      out += "Generation:  " + std::to_string(creds->generation) + "\n";
      out += "Expiration:  " + (creds->expiry ? expiry : std::string("none (long-term keys)")) + "\n";
    }
  }
  if (!write_stdout(out)) co_return exit_error;
  co_return exit_ok;
}

constexpr option_spec verbose{"verbose", 'v', "",
                              "also the credential source, generation and expiry (and, as\neverywhere, the request log "
                              "on stderr)",
                              set_verbose};
constexpr option_spec const* whoami_options[] = {&verbose};

constexpr verb_spec whoami_verbs[] = {
    {.name = "whoami",
     .min_args = 0,
     .max_args = 0,
     .operands = "",
     .summary = "who the credentials are",
     .description = "Asks STS who the credentials belong to (GetCallerIdentity) and prints the\n"
                    "account, the ARN and the user id. --verbose adds where the credentials came\n"
                    "from (the default chain's source), their generation and their expiry.\n"
                    "Never prints a secret key, a session token or a token file's contents.\n"
                    "The STS endpoint: --endpoint-url when given, else AWS_ENDPOINT_URL_STS,\n"
                    "AWS_ENDPOINT_URL, the profile's services section and endpoint_url, the\n"
                    "regional endpoint (--region, AWS_REGION, the profile's region), the global one.\n",
     .options = whoami_options,
     .run = cmd_whoami,
     .own_session = true},
};

}  // namespace

namespace verbs {
extern family const whoami = whoami_verbs;  // registered in verbs.cpp
}  // namespace verbs

}  // namespace floe::cli
