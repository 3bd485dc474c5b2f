#pragma once
// Gathers the refresh implementation files for <floe/src.hpp> and libfloe's units (src/lib/). One line per header.
#include <floe/refresh/impl/policy.ipp>
