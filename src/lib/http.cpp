// libfloe, one of its units (src/lib/meson.build): the HTTP client and the request driver.
#define FLOE_SOURCE 1
#include <floe/config.hpp>

#include <floe/http/impl/all.ipp>
#include <floe/service/impl/all.ipp>
