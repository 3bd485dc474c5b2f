#pragma once
// Compiles floe's non-template implementation. Included by exactly one
// translation unit of an embedder that builds floe itself instead of linking
// libfloe. libfloe compiles the same files in a few units (src/lib/), that
// build in parallel; tests/unit/headers/lib_units.py checks both lists agree.

#if defined(FLOE_HEADER_ONLY)
#error "src.hpp is for separate compilation; do not define FLOE_HEADER_ONLY"
#endif
#define FLOE_SOURCE 1

#include <floe/impl/error.ipp>
#include <floe/impl/environment.ipp>
#include <floe/checksum/impl/all.ipp>
#include <floe/sigv4/impl/all.ipp>
#include <floe/xml/impl/all.ipp>
#include <floe/json/impl/all.ipp>
#include <floe/errors/impl/all.ipp>
#include <floe/retry/impl/all.ipp>
#include <floe/endpoints/impl/all.ipp>
#include <floe/http/impl/all.ipp>
#include <floe/credentials/impl/all.ipp>
#include <floe/session/impl/all.ipp>
#include <floe/service/impl/all.ipp>
#include <floe/s3/impl/all.ipp>
#include <floe/sts/impl/all.ipp>
#include <floe/providers/impl/all.ipp>
#include <floe/sqs/impl/all.ipp>
#include <floe/refresh/impl/all.ipp>
#include <floe/watch/impl/all.ipp>
#include <floe/ledger/impl/all.ipp>
