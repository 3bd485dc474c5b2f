// libfloe, one of its units (src/lib/meson.build): credential sources, STS and the refresh machinery.
#define FLOE_SOURCE 1
#include <floe/config.hpp>

#include <floe/credentials/impl/all.ipp>
#include <floe/sts/impl/all.ipp>
#include <floe/refresh/impl/all.ipp>
