#pragma once
// floe ledger reconcile LEDGER PATTERN...: one reconcile pass of floe
// watch's (watch::watcher::reconcile_now), for backfills.

#include "context.hpp"

#include <floe/ledger/ledger.hpp>

#include <boost/asio/awaitable.hpp>

namespace floe::cli {

/// Lists each pattern's literal prefix (x.cl.args[2..]) a page at a time
/// and registers the matching objects `l` lacks, through the watcher's own
/// HEAD / commit path. Exit 0 when every listing and object succeeded, 1
/// otherwise (the summary says what failed).
boost::asio::awaitable<int> run_ledger_reconcile(context& x, ledger::ledger& l);

}  // namespace floe::cli
