#pragma once
// Gathers the http implementation files for src/floe.cpp. One line per header.
