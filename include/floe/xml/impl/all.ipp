#pragma once
// Gathers the xml implementation files for <floe/src.hpp> and libfloe's units (src/lib/). One line per header.
#include <floe/xml/impl/document.ipp>
#include <floe/xml/impl/error_body.ipp>
