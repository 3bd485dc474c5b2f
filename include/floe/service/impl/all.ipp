#pragma once
#include <floe/service/impl/diagnostics.ipp>
#include <floe/service/impl/protocol.ipp>
#include <floe/service/impl/request_machine.ipp>
#include <floe/service/impl/driver.ipp>
