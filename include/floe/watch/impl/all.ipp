#pragma once
// Gathers the watch implementation files for <floe/src.hpp> and libfloe's units (src/lib/). One line per header.
#include <floe/watch/impl/batch.ipp>
#include <floe/watch/impl/deletion.ipp>
#include <floe/watch/impl/denial.ipp>
#include <floe/watch/impl/event.ipp>
#include <floe/watch/impl/lag.ipp>
#include <floe/watch/impl/metrics.ipp>
#include <floe/watch/impl/pattern.ipp>
#include <floe/watch/impl/reconcile.ipp>
#include <floe/watch/impl/release.ipp>
#include <floe/watch/impl/visibility.ipp>
#include <floe/watch/impl/watcher.ipp>
