#pragma once
// Gathers the sigv4 implementation files for src/floe.cpp. One line per header.
