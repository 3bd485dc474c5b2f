#pragma once
// Gathers the xml implementation files for src/floe.cpp. One line per header.
#include <floe/xml/impl/document.ipp>
#include <floe/xml/impl/error_body.ipp>
