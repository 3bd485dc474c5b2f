#pragma once
// Gathers the credentials implementation files for src/floe.cpp. One line per header.
