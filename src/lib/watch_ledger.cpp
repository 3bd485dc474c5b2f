// libfloe, one of its units (src/lib/meson.build): watch and the ledger.
#define FLOE_SOURCE 1
#include <floe/config.hpp>

#include <floe/watch/impl/all.ipp>
#include <floe/ledger/impl/all.ipp>
