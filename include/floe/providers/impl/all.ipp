#pragma once
#include <floe/providers/impl/default_session.ipp>
