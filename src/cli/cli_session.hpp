#pragma once
// The session of the verbs that make their own clients (sqs, watch): one
// configuration and one credential cache from the global options, so that
// S3 and SQS made from it share every refresh.

#include "context.hpp"

#include <floe/session/session.hpp>

#include <memory>

namespace floe::cli {

/// A session from x.g (profile, region) and the HTTP settings of x.c. With
/// -v, says where its credentials come from, as the command does for its
/// default client (a verb_spec with own_session asks the command not to).
result<std::shared_ptr<session>> make_cli_session(context& x);

/// -v's line on where credentials come from: "credentials ..." or
/// "credentials: none (why)". Asks `provider` (null: none).
void debug_credentials(global_options const& g, credentials::provider* provider);

}  // namespace floe::cli
