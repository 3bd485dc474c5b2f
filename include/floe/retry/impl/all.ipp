#pragma once
// Gathers the retry implementation files for src/floe.cpp. One line per header.
#include <floe/retry/impl/policy.ipp>
#include <floe/retry/impl/clock_skew.ipp>
