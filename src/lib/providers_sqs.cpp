// libfloe, one of its units (src/lib/meson.build): the credential providers and the SQS client.
#define FLOE_SOURCE 1
#include <floe/config.hpp>

#include <floe/providers/impl/all.ipp>
#include <floe/sqs/impl/all.ipp>
