#pragma once
#include <floe/endpoints/impl/endpoint.ipp>
#include <floe/endpoints/impl/resolver.ipp>
