#pragma once
// Gathers the s3 implementation files for src/floe.cpp. One line per header.
