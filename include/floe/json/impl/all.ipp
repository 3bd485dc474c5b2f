#pragma once
// Gathers the json implementation files for src/floe.cpp. One line per header.
#include <floe/json/impl/writer.ipp>
