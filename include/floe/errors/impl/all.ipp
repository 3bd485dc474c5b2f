#pragma once
// Gathers the errors implementation files for <floe/src.hpp> and libfloe's units (src/lib/). One line per header.
#include <floe/errors/impl/classify.ipp>
#include <floe/errors/impl/reply_error.ipp>
#include <floe/errors/impl/json_error.ipp>
