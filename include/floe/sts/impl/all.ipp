#pragma once
// Gathers the sts implementation files for <floe/src.hpp> and libfloe's units (src/lib/). One line per header.
#include <floe/sts/impl/protocol.ipp>
#include <floe/sts/impl/client.ipp>
