#pragma once
// cp --recursive: a local directory to an S3 prefix, a prefix to a
// directory, or a prefix to another prefix, several objects at once.

#include "context.hpp"

#include <boost/asio/awaitable.hpp>

namespace floe::cli {

/// Copies x.cl.args[0] to x.cl.args[1], at least one of them an s3:// URI.
/// Every direction ends with the same --json document.
boost::asio::awaitable<int> recursive_copy(context& x);

}  // namespace floe::cli
