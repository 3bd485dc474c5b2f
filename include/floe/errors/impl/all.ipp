#pragma once
// Gathers the errors implementation files for src/floe.cpp. One line per header.
