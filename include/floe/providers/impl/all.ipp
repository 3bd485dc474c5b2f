#pragma once
// Gathers the providers' implementation files for <floe/src.hpp> and libfloe's units (src/lib/).
#include <floe/providers/impl/web_identity.ipp>
#include <floe/providers/impl/container.ipp>
#include <floe/providers/impl/imds.ipp>
#include <floe/providers/impl/sso.ipp>
#include <floe/providers/impl/assume_role.ipp>
#include <floe/providers/impl/chain.ipp>
#include <floe/providers/impl/default_session.ipp>
