#pragma once
// Gathers the s3 implementation files for src/floe.cpp. One line per header.
#include <floe/s3/impl/replies.ipp>
#include <floe/s3/impl/query_builder.ipp>
#include <floe/s3/impl/addressing.ipp>
#include <floe/s3/impl/store_support.ipp>
#include <floe/s3/impl/client.ipp>
#include <floe/s3/impl/conditional.ipp>
#include <floe/s3/impl/update.ipp>
