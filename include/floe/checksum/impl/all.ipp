#pragma once
// Gathers the checksum implementation files for src/floe.cpp. One line per header.
#include <floe/checksum/impl/crc_x86.ipp>
#include <floe/checksum/impl/crc.ipp>
#include <floe/checksum/impl/base64.ipp>
#include <floe/checksum/impl/algorithm.ipp>
#include <floe/checksum/impl/hasher.ipp>
#include <floe/checksum/impl/combine.ipp>
