#pragma once
// Gathers the refresh implementation files for src/floe.cpp. One line per header.
#include <floe/refresh/impl/policy.ipp>
