#pragma once
// Gathers the credentials implementation files for <floe/src.hpp> and libfloe's units (src/lib/). One line per header.
#include <floe/credentials/impl/credentials.ipp>
#include <floe/credentials/impl/environment.ipp>
#include <floe/credentials/impl/ini.ipp>
#include <floe/credentials/impl/profile.ipp>
#include <floe/credentials/impl/shared_files.ipp>
#include <floe/credentials/impl/provider.ipp>
#include <floe/credentials/impl/refreshing.ipp>
#include <floe/credentials/impl/json_credentials.ipp>
#include <floe/credentials/impl/profile_chain.ipp>
#include <floe/credentials/impl/process.ipp>
