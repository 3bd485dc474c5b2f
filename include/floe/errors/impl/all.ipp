#pragma once
// Gathers the errors implementation files for src/floe.cpp. One line per header.
#include <floe/errors/impl/classify.ipp>
#include <floe/errors/impl/reply_error.ipp>
#include <floe/errors/impl/json_error.ipp>
