#pragma once
#include <floe/session/impl/session.ipp>
