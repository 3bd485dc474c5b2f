#pragma once
// Gathers the sts implementation files for src/floe.cpp. One line per header.
#include <floe/sts/impl/protocol.ipp>
#include <floe/sts/impl/client.ipp>
