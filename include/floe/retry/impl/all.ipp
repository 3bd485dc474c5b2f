#pragma once
// Gathers the retry implementation files for src/floe.cpp. One line per header.
