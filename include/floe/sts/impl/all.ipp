#pragma once
// Gathers the sts implementation files for src/floe.cpp. One line per header.
