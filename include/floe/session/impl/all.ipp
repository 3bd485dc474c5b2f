#pragma once
#include <floe/session/impl/quirks.ipp>
#include <floe/session/impl/session.ipp>
