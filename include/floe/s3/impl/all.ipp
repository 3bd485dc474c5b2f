#pragma once
// Gathers the s3 implementation files for src/floe.cpp. One line per header.
#include <floe/s3/impl/replies.ipp>
