#pragma once
// watch --exec: one run of the user's command for one object.
//
// The command runs as `/bin/sh -c CMD` in its own process group, stdin
// from /dev/null and stdout onto floe's stderr (floe's stdout is --jsonl's),
// with the object in its environment:
//   FLOE_BUCKET, FLOE_KEY, FLOE_URI (s3://bucket/key), FLOE_ETAG (what HEAD
//   said, unquoted), FLOE_SIZE (bytes), FLOE_VERSION_ID (empty: none),
//   FLOE_EVENT_TIME (as the event gave it; empty: none), FLOE_EVENT_NAME.
// Exit status 0 is success; anything else (a status, a signal) fails the
// object, whose message is then kept. Cancelling the wait (the watcher's
// stop grace ran out) kills the process group and reaps it.

#include <floe/result.hpp>
#include <floe/watch/batch.hpp>

#include <boost/asio/awaitable.hpp>

#include <string>
#include <utility>
#include <vector>

namespace floe::cli {

/// The variables the command gets (name, value), in this order.
std::vector<std::pair<std::string, std::string>> exec_environment(watch::object_work const& w);

/// Runs `command` for `w` and waits for it. Errors: errc::service_error
/// naming the exit status or signal; a system error when it cannot start.
boost::asio::awaitable<result<void>> run_exec(std::string const& command, watch::object_work const& w);

}  // namespace floe::cli
