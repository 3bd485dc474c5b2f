#pragma once
// Gathers the watch implementation files for src/floe.cpp. One line per header.
#include <floe/watch/impl/event.ipp>
#include <floe/watch/impl/pattern.ipp>
