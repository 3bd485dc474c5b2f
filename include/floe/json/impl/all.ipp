#pragma once
// Gathers the json implementation files for <floe/src.hpp> and libfloe's units (src/lib/). One line per header.
#include <floe/json/impl/writer.ipp>
