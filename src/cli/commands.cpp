// Runs one verb: -v's account of where requests go and with which
// credentials, then the verb the registry names.

#include "commands.hpp"

#include "cli_session.hpp"
#include "context.hpp"
#include "output.hpp"
#include "verbs.hpp"

#include <floe/s3/addressing.hpp>

namespace floe::cli {

boost::asio::awaitable<int> run_command(s3::client& c, command_line const& cl) {
  context x{c, cl, cl.g};
  auto const* verb = find_verb(cl.verb);
  if (cl.g.debug) {
    auto const& a = c.addressing();
    std::string ep = a.custom_endpoint ? a.custom_endpoint->scheme + "://" + a.custom_endpoint->authority() +
                                             a.custom_endpoint->base_path
                                       : std::string("AWS");
    char const* style = a.style == s3::addressing_style::path             ? "path"
                        : a.style == s3::addressing_style::virtual_hosted ? "virtual"
                                                                          : "automatic";
    debug_line(cl.g, "endpoint " + ep + " (" + a.endpoint_source + "), region " + a.region + " (" + a.region_source +
                         "), addressing " + style);
    if (verb == nullptr || !verb->own_session) debug_credentials(cl.g, &c.credentials_provider());
  }
  if (verb == nullptr) co_return usage_error(x, "unknown command");
  co_return co_await verb->run(x);
}

}  // namespace floe::cli
