#pragma once
// Gathers the retry implementation files for <floe/src.hpp> and libfloe's units (src/lib/). One line per header.
#include <floe/retry/impl/policy.ipp>
#include <floe/retry/impl/clock_skew.ipp>
#include <floe/retry/impl/size_band.ipp>
#include <floe/retry/impl/hedge.ipp>
