#pragma once
// Gathers the http implementation files for src/floe.cpp. One line per header.
#include <floe/http/impl/url.ipp>
#include <floe/http/impl/proxy.ipp>
#include <floe/http/impl/message.ipp>
#include <floe/http/impl/tls.ipp>
#include <floe/http/impl/client.ipp>
