#pragma once
// Runs the verb a parsed command line names.

#include "command_line.hpp"

#include <floe/s3/client.hpp>

#include <boost/asio/awaitable.hpp>

namespace floe::cli {

/// Runs `cl.verb` with `c`; completes with the exit code. Output goes to
/// stdout, errors and the debug log to stderr. Throws nothing the library
/// does not.
boost::asio::awaitable<int> run_command(s3::client& c, command_line const& cl);

}  // namespace floe::cli
