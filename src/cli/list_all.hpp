#pragma once
// A whole listing of the keys under a prefix (ls, rm --recursive, cp
// --recursive).

#include "context.hpp"

#include <boost/asio/awaitable.hpp>

#include <string>

namespace floe::cli {

/// Every key under `prefix` (grouped at `delimiter` when not empty), with
/// the -v line of the operation; the failure is the caller's to report.
boost::asio::awaitable<result<s3::listing>> list_all(context& x, std::string const& bucket, std::string const& prefix,
                                                     std::string const& delimiter);

}  // namespace floe::cli
