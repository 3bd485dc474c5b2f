// libfloe, one of its units (src/lib/meson.build): the pure core: errors, checksums, signing, XML and JSON, retry rules, endpoints, sessions.
#define FLOE_SOURCE 1
#include <floe/config.hpp>

#include <floe/impl/error.ipp>
#include <floe/impl/environment.ipp>
#include <floe/checksum/impl/all.ipp>
#include <floe/sigv4/impl/all.ipp>
#include <floe/xml/impl/all.ipp>
#include <floe/json/impl/all.ipp>
#include <floe/errors/impl/all.ipp>
#include <floe/retry/impl/all.ipp>
#include <floe/endpoints/impl/all.ipp>
#include <floe/session/impl/all.ipp>
