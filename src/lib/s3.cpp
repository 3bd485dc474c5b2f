// libfloe, one of its units (src/lib/meson.build): the S3 client.
#define FLOE_SOURCE 1
#include <floe/config.hpp>

#include <floe/s3/impl/all.ipp>
