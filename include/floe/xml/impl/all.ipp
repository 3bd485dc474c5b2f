#pragma once
// Gathers the xml implementation files for src/floe.cpp. One line per header.
