#pragma once
// The words for a failure: the operating system's or the resolver's reason
// for an error code ("connection refused", "name does not resolve",
// "connection reset by peer") and a limit's duration ("30 s").

#include <floe/config.hpp>

#include <boost/system/error_code.hpp>

#include <chrono>
#include <string>

namespace floe::http {

/// The reason `ec` gives, in lower case, as it reads after "connecting to
/// host:port: " or "reading the request body FILE: ". Resolver codes say
/// what they mean for a name ("name does not resolve"); other codes give
/// their category's message.
FLOE_DECL std::string error_reason(boost::system::error_code const& ec);

/// "30 s" for whole seconds, "700 ms" otherwise.
FLOE_DECL std::string format_duration(std::chrono::milliseconds d);

}  // namespace floe::http

#if defined(FLOE_HEADER_ONLY)
#include <floe/http/impl/error_words.ipp>
#endif
